import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Reads one pipe from a child process into memory as the child writes, so a chatty server never
/// blocks on a full pipe, and tells when the pipe has ended.
///
/// A thread of its own blocks in `read` until the end of the pipe, then closes it. Not a dispatch
/// read source: on Linux, libdispatch's epoll bookkeeping can free a source's note while it is still
/// registered when many sources are set up and torn down at once (swift-corelibs-libdispatch issue
/// 949), and one full test run in 15 crashed in `_dispatch_event_loop_drain` that way. A blocking
/// read registers nothing with libdispatch. Not Foundation's `readabilityHandler` either: it is such
/// a source, and on Linux it is not called at the end of the pipe.
final class PipeReader: Sendable {
    private struct State {
        var data = Data()
        var finished = false
    }

    private let state = Mutex(State())

    /// Starts reading `descriptor`, which the reader owns from now on and closes at the end. The
    /// thread holds the reader until then: a child killed or ended closes its end, so the reading
    /// stops when the child does.
    init(descriptor: Int32) {
        let thread = Thread { [self] in
            self.readToEnd(descriptor)
        }
        thread.name = "pipe-reader-\(descriptor)"
        thread.start()
    }

    /// Everything read so far, as text.
    var text: String { state.withLock { String(decoding: $0.data, as: UTF8.self) } }

    /// Whether the pipe has ended: every writer closed it and everything it held was read.
    var isFinished: Bool { state.withLock { $0.finished } }

    private func readToEnd(_ descriptor: Int32) {
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = read(descriptor, &buffer, buffer.count)
            if count > 0 {
                state.withLock { $0.data.append(contentsOf: buffer[0..<count]) }
            } else if count < 0 && errno == EINTR {
                continue
            } else {
                // The end, or an unreadable pipe: nothing more will come from it.
                break
            }
        }
        close(descriptor)
        state.withLock { $0.finished = true }
    }
}
