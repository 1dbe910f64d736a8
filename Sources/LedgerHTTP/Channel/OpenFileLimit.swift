#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The process's soft limit on open file descriptors, which bounds its connections.
enum OpenFileLimit {
    /// The soft `RLIMIT_NOFILE`, or 1,024 (a common default) when it cannot be read; an unlimited
    /// one counts as `Int.max`.
    static var current: Int {
        var limit = rlimit()
        #if canImport(Glibc)
        let resource = __rlimit_resource_t(RLIMIT_NOFILE.rawValue)
        #else
        let resource = RLIMIT_NOFILE
        #endif
        guard getrlimit(resource, &limit) == 0 else { return 1_024 }
        // RLIM_INFINITY is all ones, past `Int.max` too.
        if limit.rlim_cur > rlim_t(Int.max) { return Int.max }
        return Int(limit.rlim_cur)
    }
}
