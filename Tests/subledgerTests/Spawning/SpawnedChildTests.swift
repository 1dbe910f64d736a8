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
                read line; echo "read: $line"
                exec grep -E '^Sig(Blk|Ign):' /proc/self/status
                """
            // Spawned from a thread that blocks SIGTERM, in a process that ignores SIGPIPE (the helper
            // ignores it, and so does NIO): the child must get neither. `init` is synchronous, so the
            // mask below is the spawning thread's.
            var terminate = sigset_t()
            sigemptyset(&terminate)
            sigaddset(&terminate, SIGTERM)
            var previous = sigset_t()
            pthread_sigmask(SIG_BLOCK, &terminate, &previous)
            let started = Result {
                try SubledgerProcess(["-c", script], in: directory, environment: ["ONLY": "this"], input: "typed\n", executable: Self.shell)
            }
            pthread_sigmask(SIG_SETMASK, &previous, nil)
            let process = try started.get()
            #expect(try await process.waitForExit() == 0)
            let lines = process.standardOutput.split(separator: "\n").map(String.init)
            try #require(lines.count == 6, "\(process.standardOutput) \(process.standardError)")
            #expect(lines[0] == directory.resolvingSymlinksInPath().path)
            // 3 is the directory `ls` itself opened to list them.
            #expect(lines[1].split(separator: " ") == ["0", "1", "2", "3"])
            #expect(lines[2] == "this")
            #expect(lines[3] == "read: typed")
            // `exec`, not a forked command: dash clears the mask of the children it forks.
            for line in lines[4...5] {
                let mask = try #require(line.split(separator: "\t").last.flatMap { UInt64($0, radix: 16) })
                for signal in [SIGINT, SIGTERM, SIGPIPE] {
                    #expect(mask & (1 << UInt64(signal - 1)) == 0, "\(line): signal \(signal) blocked or ignored")
                }
            }
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
