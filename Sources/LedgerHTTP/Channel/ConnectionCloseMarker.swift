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
/// A request whose body breaks its framing (the parser refuses what follows its head) ends its
/// connection too, since nothing after it can be read; its answer says so as well.
final class ConnectionCloseMarker: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart
    typealias OutboundIn = HTTPServerResponsePart
    typealias OutboundOut = HTTPServerResponsePart

    /// For each request read and not yet answered, in order: whether its connection ends after it.
    private var closing: [Bool] = []
    /// Whether the last request read has a head and no end yet.
    private var inBody = false

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let part = unwrapInboundIn(data)
        if case .end = part { inBody = false }
        guard case .head(var head) = part else {
            context.fireChannelRead(data)
            return
        }
        inBody = true
        let closes = !head.isKeepAlive || head.headers["connection"] == ["close"]
        closing.append(closes)
        guard closes, head.headers["connection"] != ["close"] else {
            context.fireChannelRead(data)
            return
        }
        head.headers.replaceOrAdd(name: "connection", value: "close")
        context.fireChannelRead(wrapInboundOut(.head(head)))
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        // The parser refuses every byte after its error, so the connection ends after the request
        // whose body it broke off. Answers go in order, so the last entry is that request, unless
        // it was answered already (an early 413): then none is left.
        if error is HTTPParserError, inBody, !closing.isEmpty {
            closing[closing.count - 1] = true
        }
        context.fireErrorCaught(error)
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
