import HTTPTypes
import Hummingbird
import Logging
import NIOCore

/// Answers a connection over ``ConnectionLimit`` with a 503 `too_many_connections` and ends it.
///
/// It sits first in the pipeline, so it writes the answer as bytes and drops whatever the client
/// sends before any of it is parsed. The answer goes out at once (the request is never read), the
/// output is closed so the client reads it to its end (a full close with its request unread could
/// reset the connection before it does), and the connection is closed after the limit's `linger`
/// whatever the client does. How many refused connections can linger at once is bounded by the
/// server's accept ceiling (`LedgerApplication.Settings.refusalHeadroom`).
final class ConnectionRefusalHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private let limit: ConnectionLimit
    private let logger: Logger
    private var answered = false

    init(limit: ConnectionLimit, logger: Logger) {
        self.limit = limit
        self.logger = logger
    }

    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { answer(context: context) }
    }

    func channelActive(context: ChannelHandlerContext) {
        answer(context: context)
        context.fireChannelActive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        // Dropped: the request is refused unread.
    }

    func channelReadComplete(context: ChannelHandlerContext) {}

    private func answer(context: ChannelHandlerContext) {
        guard !answered else { return }
        answered = true
        let requestID = RequestID().description
        limit.refusals.increment()
        if limit.logsRefusal(at: context.eventLoop.now.uptimeNanoseconds) {
            logger.warning(
                "refused a connection: the server has as many open as http.max_connections allows (logged once a minute at most; subledger_connections_refused_total counts them all)",
                metadata: [
                    "request_id": "\(requestID)", "max_connections": "\(limit.maximum)",
                    "remote": "\(context.channel.remoteAddress.map { "\($0)" } ?? "-")",
                ]
            )
        }
        context.writeAndFlush(wrapOutboundOut(Self.response(maximum: limit.maximum, requestID: requestID)), promise: nil)
        let channel = context.channel
        channel.close(mode: .output).whenFailure { _ in channel.close(promise: nil) }
        channel.eventLoop.scheduleTask(in: limit.linger) { channel.close(promise: nil) }
    }

    /// The whole HTTP/1.1 answer, head and problem+json body.
    static func response(maximum: Int, requestID: String) -> ByteBuffer {
        let problem = Problem(
            status: .serviceUnavailable, code: "too_many_connections", title: "Too many connections",
            detail: "the server already has its maximum of \(maximum) connections open; retry shortly, or reuse a connection"
        )
        let body = (try? problem.encodedBody()) ?? ByteBuffer()
        var buffer = ByteBuffer()
        buffer.writeString(
            "HTTP/1.1 503 Service Unavailable\r\n"
                + "Content-Type: \(Problem.contentType)\r\n"
                + "Content-Length: \(body.readableBytes)\r\n"
                + "Connection: close\r\n"
                + "Retry-After: 1\r\n"
                + "\(HTTPField.Name.requestID.canonicalName): \(requestID)\r\n"
                + "\r\n"
        )
        buffer.writeImmutableBuffer(body)
        return buffer
    }
}
