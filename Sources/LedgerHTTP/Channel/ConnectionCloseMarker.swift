import NIOCore
import NIOHTTP1

/// Makes a request that asks for its connection to end after it carry exactly `Connection: close`,
/// the one form Hummingbird looks for, before the head loses its HTTP version.
///
/// An HTTP/1.0 request without `Connection: keep-alive` asks for that by its version alone, and a
/// `Connection` header may say `Close` or name it among other tokens. Unmarked, such a connection
/// stayed open after its answer until the idle timeout closed it.
final class ConnectionCloseMarker: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard case .head(var head) = unwrapInboundIn(data), !head.isKeepAlive, head.headers["connection"] != ["close"] else {
            context.fireChannelRead(data)
            return
        }
        head.headers.replaceOrAdd(name: "connection", value: "close")
        context.fireChannelRead(wrapInboundOut(.head(head)))
    }
}
