import NIOCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// How many bytes of its answer the peer's TCP has acknowledged on a connection, read from
/// Linux's `TCP_INFO` (`tcpi_bytes_acked`, Linux 4.1 and later).
///
/// A count that grows shows a client taking its answer, however slowly; whether NIO's buffer has
/// drained does not, since the kernel makes room in a full socket only in steps of about a third
/// of its send buffer. Elsewhere, or on a channel without a socket, the count is `nil`.
enum AcknowledgedBytes {
    /// The count on `channel`, or `nil` where it cannot be read.
    static func read(from channel: any Channel) -> EventLoopFuture<UInt64?> {
        #if os(Linux)
        guard let provider = channel as? any SocketOptionProvider else {
            return channel.eventLoop.makeSucceededFuture(nil)
        }
        let info: EventLoopFuture<TCPInfoHead> = provider.unsafeGetSocketOption(
            level: SocketOptionLevel(IPPROTO_TCP), name: SocketOptionName(TCP_INFO)
        )
        return info.map { Optional($0.bytesAcknowledged) }.recover { _ in nil }
        #else
        return channel.eventLoop.makeSucceededFuture(nil)
        #endif
    }
}

#if os(Linux)
/// The first 128 bytes of Linux's `struct tcp_info`, whose last 8 are `tcpi_bytes_acked` (glibc's
/// declaration of the struct ends before it). The kernel fills what it has and leaves the rest as
/// NIO zeroed it, so an older kernel reads as no progress at all.
private struct TCPInfoHead: Sendable {
    var words: (
        UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64,
        UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64
    )

    /// `tcpi_bytes_acked`, at byte offset 120.
    var bytesAcknowledged: UInt64 { words.15 }
}
#endif
