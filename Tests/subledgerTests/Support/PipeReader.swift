import Dispatch
import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Reads one pipe from a child process into memory as the child writes, so a chatty server never
/// blocks on a full pipe, and tells when the pipe has ended.
///
/// Every read happens under one lock, whether the readability source or `drain()` asked for it, so
/// the bytes keep their order and a caller that saw the child exit can read the rest itself. Not
/// Foundation's `readabilityHandler`: on Linux it is not called at the end of the pipe, so a reader
/// cannot tell "ended" from "nothing yet".
final class PipeReader: Sendable {
    private struct State {
        var data = Data()
        var finished = false
        /// Calls `drain()` whenever the pipe is readable; cancelled at the end, which closes it.
        var source: (any DispatchSourceRead)?
    }

    private let descriptor: Int32
    private let state: Mutex<State>

    /// Starts reading `descriptor`, which the reader owns from now on and closes at the end.
    init(descriptor: Int32) {
        self.descriptor = descriptor
        _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) | O_NONBLOCK)
        state = Mutex(State(source: DispatchSource.makeReadSource(fileDescriptor: descriptor, queue: .global())))
        state.withLock { state in
            state.source?.setEventHandler { [weak self] in self?.drain() }
            state.source?.setCancelHandler { close(descriptor) }
            state.source?.resume()
        }
    }

    deinit {
        state.withLock { $0.source?.cancel() }
    }

    /// Everything read so far, as text.
    var text: String { state.withLock { String(decoding: $0.data, as: UTF8.self) } }

    /// Whether the pipe has ended: every writer closed it and everything it held was read.
    var isFinished: Bool { state.withLock { $0.finished } }

    /// Reads what the pipe holds now, without waiting; at its end, marks it finished and stops
    /// the source (which closes the descriptor).
    func drain() {
        state.withLock { state in
            guard !state.finished else { return }
            var buffer = [UInt8](repeating: 0, count: 65_536)
            while true {
                let count = read(descriptor, &buffer, buffer.count)
                if count > 0 {
                    state.data.append(contentsOf: buffer[0..<count])
                } else if count < 0 && errno == EINTR {
                    continue
                } else if count < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) {
                    return
                } else {
                    // The end, or an unreadable pipe: nothing more will come from it.
                    state.finished = true
                    state.source?.cancel()
                    state.source = nil
                    return
                }
            }
        }
    }
}
