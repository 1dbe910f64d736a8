import Foundation
import Synchronization
import Testing

/// Runs the built `subledger` executable as a real process, as an operator would.
final class SubledgerProcess: Sendable {
    /// The folder `swift build` put the test bundle and the executables in.
    static var productsDirectory: URL {
        URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
    }

    static var executable: URL { productsDirectory.appendingPathComponent("subledger") }

    private let child: SpawnedChild
    /// The exit status once the child has been reaped.
    private let reaped = Mutex<Int32?>(nil)
    private let output: PipeReader
    private let errors: PipeReader

    /// Starts `subledger <arguments>` in `directory` with `environment` added to the test process's
    /// own without its `SUBLEDGER_` settings (`scripts/test`'s run marker stays), and `input` (when
    /// given) on its standard input; `executable` replaces `subledger` to test this helper.
    init(
        _ arguments: [String], in directory: URL, environment: [String: String] = [:], input: String? = nil,
        executable: URL = SubledgerProcess.executable
    ) throws {
        var base = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("SUBLEDGER_") }
        base.merge(environment) { _, new in new }
        let child = try SpawnedChild.start(
            executable: executable.path,
            arguments: arguments,
            directory: directory.path,
            environment: base,
            withInput: input != nil
        )
        self.child = child
        output = PipeReader(descriptor: child.output)
        errors = PipeReader(descriptor: child.errors)
        if let descriptor = child.input, let input {
            let writer = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
            try writer.write(contentsOf: Data(input.utf8))
            try writer.close()
        }
    }

    /// A child still running when the test lets go of it (a test that failed midway) is killed
    /// and reaped, so it holds no port and leaves no zombie for the rest of the run.
    deinit {
        reaped.withLock { status in
            guard status == nil else { return }
            kill(child.pid, SIGKILL)
            var ignored: Int32 = 0
            _ = waitpid(child.pid, &ignored, 0)
        }
    }

    var standardOutput: String { output.text }
    var standardError: String { errors.text }

    /// The exit status if the process has ended; nil while it runs.
    private var exitStatus: Int32? {
        reaped.withLock { status in
            if status == nil { status = child.pollExit() }
            return status
        }
    }

    /// Waits for the "listening on" line and returns the port.
    func waitForPort(timeout: Duration = .seconds(60)) async throws -> Int {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if let line = standardOutput.split(separator: "\n").first(where: { $0.hasPrefix("subledger listening on ") }),
               let port = line.split(separator: ":").last.flatMap({ Int($0) }) {
                return port
            }
            if exitStatus != nil {
                _ = try await readToEnd()
                break
            }
            try await Task.sleep(for: .milliseconds(50))
        }
        throw ProcessFailure(message: "server did not report a port; stderr: \(standardError)")
    }

    /// Sends a signal (SIGTERM by default), unless the process has already been reaped.
    func signal(_ number: Int32 = SIGTERM) {
        reaped.withLock { status in
            if status == nil { kill(child.pid, number) }
        }
    }

    /// Waits for the process to exit and for its output to be read to the end, and returns its status.
    func waitForExit(timeout: Duration = .seconds(60)) async throws -> Int32 {
        let deadline = ContinuousClock.now + timeout
        while true {
            if let status = exitStatus {
                guard try await readToEnd() else {
                    throw ProcessFailure(message: "the process exited, but its output did not end within 5 s")
                }
                return status
            }
            guard ContinuousClock.now < deadline else {
                signal(SIGTERM)
                throw ProcessFailure(message: "process did not exit in time")
            }
            try await Task.sleep(for: .milliseconds(50))
        }
    }

    /// Waits until the readers of an exited child's pipes have read them to their end; false if
    /// they have not ended within `budget` (only a descendant still holding them could keep them open).
    private func readToEnd(budget: Duration = .seconds(5)) async throws -> Bool {
        let deadline = ContinuousClock.now + budget
        while true {
            if output.isFinished && errors.isFinished { return true }
            guard ContinuousClock.now < deadline else { return false }
            try await Task.sleep(for: .milliseconds(10))
        }
    }

    /// Runs a short command to completion.
    static func run(
        _ arguments: [String], in directory: URL, environment: [String: String] = [:], input: String? = nil,
        executable: URL = SubledgerProcess.executable
    ) async throws -> (status: Int32, stdout: String, stderr: String) {
        let process = try SubledgerProcess(arguments, in: directory, environment: environment, input: input, executable: executable)
        let status = try await process.waitForExit()
        return (status, process.standardOutput, process.standardError)
    }
}

struct ProcessFailure: Error, CustomStringConvertible {
    var message: String
    var description: String { message }
}

/// A fresh empty working directory, removed afterwards.
func withTemporaryDirectory<T>(_ body: (URL) async throws -> T) async throws -> T {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("subledger-cli-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    return try await body(directory)
}
