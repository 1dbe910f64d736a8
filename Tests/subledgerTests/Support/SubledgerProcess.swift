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

    private let process: Process
    private let output = LockedData()
    private let errors = LockedData()

    /// Starts `subledger <arguments>` in `directory` with `environment` added to a clean one, and
    /// `input` (when given) on its standard input.
    init(_ arguments: [String], in directory: URL, environment: [String: String] = [:], input: String? = nil) throws {
        let process = Process()
        process.executableURL = Self.executable
        process.arguments = arguments
        process.currentDirectoryURL = directory
        var base = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("SUBLEDGER_") }
        base.merge(environment) { _, new in new }
        process.environment = base
        let stdout = Pipe()
        let stderr = Pipe()
        process.standardOutput = stdout
        process.standardError = stderr
        self.process = process
        stdout.fileHandleForReading.readabilityHandler = { [output] handle in
            let data = handle.availableData
            output.append(data)
        }
        stderr.fileHandleForReading.readabilityHandler = { [errors] handle in
            let data = handle.availableData
            errors.append(data)
        }
        let stdin = input.map { _ in Pipe() }
        if let stdin { process.standardInput = stdin }
        try process.run()
        if let stdin, let input {
            stdin.fileHandleForWriting.write(Data(input.utf8))
            try stdin.fileHandleForWriting.close()
        }
    }

    var standardOutput: String { output.text }
    var standardError: String { errors.text }

    /// Waits for the "listening on" line and returns the port.
    func waitForPort(timeout: Duration = .seconds(60)) async throws -> Int {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if let line = standardOutput.split(separator: "\n").first(where: { $0.hasPrefix("subledger listening on ") }),
               let port = line.split(separator: ":").last.flatMap({ Int($0) }) {
                return port
            }
            guard process.isRunning else { break }
            try await Task.sleep(for: .milliseconds(50))
        }
        throw ProcessFailure(message: "server did not report a port; stderr: \(standardError)")
    }

    /// Sends a signal (SIGTERM by default).
    func signal(_ number: Int32 = SIGTERM) {
        kill(process.processIdentifier, number)
    }

    /// Waits for the process to exit and returns its status.
    func waitForExit(timeout: Duration = .seconds(60)) async throws -> Int32 {
        let deadline = ContinuousClock.now + timeout
        while process.isRunning {
            guard ContinuousClock.now < deadline else {
                process.terminate()
                throw ProcessFailure(message: "process did not exit in time")
            }
            try await Task.sleep(for: .milliseconds(50))
        }
        // Let the pipes drain.
        try await Task.sleep(for: .milliseconds(100))
        return process.terminationStatus
    }

    /// Runs a short command to completion.
    static func run(
        _ arguments: [String], in directory: URL, environment: [String: String] = [:], input: String? = nil
    ) async throws -> (status: Int32, stdout: String, stderr: String) {
        let process = try SubledgerProcess(arguments, in: directory, environment: environment, input: input)
        let status = try await process.waitForExit()
        return (status, process.standardOutput, process.standardError)
    }
}

/// Bytes a pipe handler appends while the test reads them.
final class LockedData: Sendable {
    private let data = Mutex(Data())
    func append(_ bytes: Data) { data.withLock { $0.append(bytes) } }
    var text: String { data.withLock { String(decoding: $0, as: UTF8.self) } }
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
