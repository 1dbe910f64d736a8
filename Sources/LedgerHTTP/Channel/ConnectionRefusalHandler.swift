import HTTPTypes
import Hummingbird
import Logging
import Metrics
import NIOCore

/// Answers a connection over ``ConnectionLimit`` with a 503 `too_many_connections` and ends it.
///
/// It sits first in the pipeline, so it writes the answer as bytes and drops whatever the client
/// sends before any of it is parsed. The answer goes out at once (the request is never read), the
/// output is closed so the client reads it to its end, and the connection is closed a second later
/// whatever the client does, so refused connections do not pile up either.
final class ConnectionRefusalHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    /// How long a refused connection may stay after its answer, for the client to read it.
    static let lingering = TimeAmount.seconds(1)

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
        Self.refusals.increment()
        if limit.logsRefusal(at: NIODeadline.now().uptimeNanoseconds) {
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
        channel.eventLoop.scheduleTask(in: Self.lingering) { channel.close(promise: nil) }
    }

    /// Every refused connection, for operators (the log line is throttled).
    private static var refusals: Counter { Counter(label: "subledger_connections_refused_total") }

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
