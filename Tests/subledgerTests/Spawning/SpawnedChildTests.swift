import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// The helper that starts the executable under test: the child must start as a shell would start
/// it, or a test could pass or hang because of what it inherited from the test process.
@Suite("Spawning a child process for the CLI tests")
struct SpawnedChildTests {
    static let shell = URL(fileURLWithPath: "/bin/sh")

    @Test func aChildStartsInItsDirectoryWithItsInputEnvironmentAndOnlyTheStandardDescriptors() async throws {
        try await withTemporaryDirectory { directory in
            // Held open without close-on-exec, as Foundation's pipes are: it must not reach the child.
            let held = open("/dev/null", O_RDONLY)
            #expect(held > 2)
            defer { close(held) }
            let script = """
                pwd
                ls /proc/self/fd | tr '\\n' ' '; echo
                echo "$ONLY"
                grep -E '^Sig(Blk|Ign):' /proc/self/status
                read line; echo "read: $line"
                """
            let finished = try await SubledgerProcess.run(
                ["-c", script], in: directory, environment: ["ONLY": "this"], input: "typed\n", executable: Self.shell
            )
            #expect(finished.status == 0)
            let lines = finished.stdout.split(separator: "\n").map(String.init)
            try #require(lines.count == 6, "\(finished.stdout) \(finished.stderr)")
            #expect(lines[0] == directory.path)
            // 3 is the directory `ls` itself opened to list them.
            #expect(lines[1].split(separator: " ") == ["0", "1", "2", "3"])
            #expect(lines[2] == "this")
            for line in lines[3...4] {
                let mask = try #require(line.split(separator: "\t").last.flatMap { UInt64($0, radix: 16) })
                for signal in [SIGINT, SIGTERM, SIGPIPE] {
                    #expect(mask & (1 << UInt64(signal - 1)) == 0, "\(line): signal \(signal) blocked or ignored")
                }
            }
            #expect(lines[5] == "read: typed")
        }
    }

    @Test func theStatusIsTheExitCodeOrTheSignalThatEndedTheChild() async throws {
        try await withTemporaryDirectory { directory in
            let exited = try await SubledgerProcess.run(["-c", "exit 3"], in: directory, executable: Self.shell)
            #expect(exited.status == 3)
            let killed = try await SubledgerProcess.run(["-c", "kill -TERM $$"], in: directory, executable: Self.shell)
            #expect(killed.status == SIGTERM)
        }
    }
}
