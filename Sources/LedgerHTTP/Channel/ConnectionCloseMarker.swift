import NIOCore
import NIOHTTP1

/// Makes a request that asks for its connection to end after it carry exactly `Connection: close`,
/// the one form Hummingbird looks for, before the head loses its HTTP version; and says so in the
/// answer to such a request, as RFC 9112 §9.6 asks of a server that closes after it.
///
/// An HTTP/1.0 request without `Connection: keep-alive` asks for that by its version alone, and a
/// `Connection` header may say `Close` or name it among other tokens. Unmarked, such a connection
/// stayed open after its answer until the idle timeout closed it. ``ExpectContinueHandler``, which
/// marks a request it will not read the body of, sits before this one, so its mark is seen here too.
final class ConnectionCloseMarker: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart
    typealias OutboundIn = HTTPServerResponsePart
    typealias OutboundOut = HTTPServerResponsePart

    /// For each request read and not yet answered, in order: whether its connection ends after it.
    private var closing: [Bool] = []

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard case .head(var head) = unwrapInboundIn(data) else {
            context.fireChannelRead(data)
            return
        }
        let closes = !head.isKeepAlive || head.headers["connection"] == ["close"]
        closing.append(closes)
        guard closes, head.headers["connection"] != ["close"] else {
            context.fireChannelRead(data)
            return
        }
        head.headers.replaceOrAdd(name: "connection", value: "close")
        context.fireChannelRead(wrapInboundOut(.head(head)))
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        // A final answer's head (not a 1xx) belongs to the oldest request not yet answered.
        guard case .head(var head) = unwrapOutboundIn(data), head.status.code >= 200, !closing.isEmpty else {
            context.write(data, promise: promise)
            return
        }
        guard closing.removeFirst(), !head.headers["connection"].contains(where: { $0.lowercased() == "close" }) else {
            context.write(data, promise: promise)
            return
        }
        head.headers.replaceOrAdd(name: "connection", value: "close")
        context.write(wrapOutboundOut(.head(head)), promise: promise)
    }
}
