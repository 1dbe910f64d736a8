#if canImport(Glibc)
import Glibc

/// A child process started with `posix_spawn`, for the tests that run the built executable.
///
/// Not Foundation's `Process`: on Linux its `run()` finds the highest open descriptor by copying
/// each `/proc/self/fd` entry's whole 256-byte `d_name`, which reads past the end of glibc's buffer
/// when the last entry sits at the end of a page. The test process holds about 1,300 descriptors
/// while every suite starts at once, and one full run in 37 crashed there (SIGSEGV in
/// `Process.run()`). swift-corelibs-foundation fixed it upstream (pull request 5472); Swift 6.3.1
/// does not have the fix.
///
/// The child starts much as a shell would start it: in `directory`, with `environment` only, its
/// standard input from `/dev/null` or a pipe, no signal blocked, SIGINT, SIGTERM, SIGPIPE, SIGHUP
/// and SIGQUIT at their defaults (another signal the test process ignores stays ignored), and no
/// descriptor of the test process beyond its three standard ones (glibc's `closefrom` action, 2.34
/// and later; this helper is for Linux, where CI runs). `SubledgerProcess` passes the test process's
/// environment on, with `scripts/test`'s run marker in it, so the end of the run stops a child the
/// test process left behind, even one whose test process crashed.
struct SpawnedChild: Sendable {
    let pid: pid_t
    /// The read ends of the child's standard output and standard error.
    let output: Int32
    let errors: Int32
    /// The write end of the child's standard input, when `withInput` was true.
    let input: Int32?

    static func start(
        executable: String,
        arguments: [String],
        directory: String,
        environment: [String: String],
        withInput: Bool
    ) throws -> SpawnedChild {
        guard let addChdir = GNUSpawnActions.addChdir, let addCloseFrom = GNUSpawnActions.addCloseFrom else {
            throw ProcessFailure(message: "this C library lacks posix_spawn_file_actions_addchdir_np or _addclosefrom_np (glibc 2.34 or later has both)")
        }
        _ = Self.ignoringBrokenPipes
        // The child's ends are the parent's to close once it has started or failed to; the parent's
        // own ends too, unless it started.
        var childEnds: [Int32] = []
        var parentEnds: [Int32] = []
        var started = false
        defer {
            for end in childEnds { close(end) }
            if !started { for end in parentEnds { close(end) } }
        }
        let stdout = try Self.pipe()
        childEnds.append(stdout.write)
        parentEnds.append(stdout.read)
        let stderr = try Self.pipe()
        childEnds.append(stderr.write)
        parentEnds.append(stderr.read)
        let stdin = withInput ? try Self.pipe() : nil
        if let stdin {
            childEnds.append(stdin.read)
            parentEnds.append(stdin.write)
        }

        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        if let stdin {
            try check(posix_spawn_file_actions_adddup2(&actions, stdin.read, STDIN_FILENO), "dup2 stdin")
        } else {
            try check(posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0), "open /dev/null")
        }
        try check(posix_spawn_file_actions_adddup2(&actions, stdout.write, STDOUT_FILENO), "dup2 stdout")
        try check(posix_spawn_file_actions_adddup2(&actions, stderr.write, STDERR_FILENO), "dup2 stderr")
        try check(addCloseFrom(&actions, 3), "closefrom")
        try check(addChdir(&actions, directory), "chdir \(directory)")

        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var blocked = sigset_t()
        sigemptyset(&blocked)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for signal in [SIGINT, SIGTERM, SIGPIPE, SIGHUP, SIGQUIT] { sigaddset(&defaults, signal) }
        try check(posix_spawnattr_setsigmask(&attributes, &blocked), "sigmask")
        try check(posix_spawnattr_setsigdefault(&attributes, &defaults), "sigdefault")
        try check(posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF)), "flags")

        let argv = cStrings([executable] + arguments)
        let envp = cStrings(environment.map { "\($0.key)=\($0.value)" })
        defer {
            for string in argv { free(string) }
            for string in envp { free(string) }
        }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, executable, &actions, &attributes, argv, envp)
        guard spawned == 0 else {
            throw ProcessFailure(message: "posix_spawn \(executable): \(String(cString: strerror(spawned)))")
        }
        started = true
        return SpawnedChild(pid: pid, output: stdout.read, errors: stderr.read, input: stdin?.write)
    }

    /// The child's exit status if it has ended (its exit code, or the number of the signal that
    /// ended it, as `Process.terminationStatus` reports), reaping it; nil while it runs, and -1 if
    /// there is no such child to wait for (it was reaped already).
    func pollExit() -> Int32? {
        var status: Int32 = 0
        let result = waitpid(pid, &status, WNOHANG)
        if result == pid {
            let signal = status & 0x7f
            return signal == 0 ? (status >> 8) & 0xff : signal
        }
        if result == -1 && errno != EINTR {
            // Nothing left to wait for (already reaped): report it ended, rather than wait forever.
            return -1
        }
        return nil
    }

    /// `strings` copied to C, followed by the NULL that ends an `argv` or `envp`; the caller frees them.
    private static func cStrings(_ strings: [String]) -> [UnsafeMutablePointer<CChar>?] {
        strings.map { (string: String) in strdup(string) } + [nil]
    }

    /// Writing to a child that has ended must fail with EPIPE, not end the test process; the
    /// child itself gets the default back (`setsigdefault`).
    private static let ignoringBrokenPipes: Void = {
        _ = signal(SIGPIPE, SIG_IGN)
    }()

    /// A pipe whose ends close on exec, so no other child of the test process holds them and the
    /// reader sees the end when this child exits (`dup2` clears the flag on the child's copies).
    private static func pipe() throws -> (read: Int32, write: Int32) {
        var ends: [Int32] = [-1, -1]
        guard Glibc.pipe(&ends) == 0 else {
            throw ProcessFailure(message: "pipe: \(String(cString: strerror(errno)))")
        }
        for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        return (ends[0], ends[1])
    }

    private static func check(_ result: Int32, _ what: String) throws {
        guard result == 0 else {
            throw ProcessFailure(message: "posix_spawn set-up (\(what)): \(String(cString: strerror(result)))")
        }
    }
}

/// glibc's GNU spawn actions, which Swift's Glibc module does not declare; looked up by name.
private enum GNUSpawnActions {
    typealias AddChdir = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>?, UnsafePointer<CChar>?) -> Int32
    typealias AddCloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>?, Int32) -> Int32

    static let addChdir: AddChdir? = symbol("posix_spawn_file_actions_addchdir_np").map { unsafeBitCast($0, to: AddChdir.self) }
    static let addCloseFrom: AddCloseFrom? = symbol("posix_spawn_file_actions_addclosefrom_np").map { unsafeBitCast($0, to: AddCloseFrom.self) }

    private static func symbol(_ name: String) -> UnsafeMutableRawPointer? {
        dlsym(dlopen(nil, RTLD_NOW), name)
    }
}
#endif
