import HTTPTypes
import Logging
import NIOCore
import NIOHTTP1
import NIOHTTPTypes

/// Answers a request head the HTTP parser refuses with a problem+json error, then closes the
/// connection.
///
/// Such a head never reaches a route, so without this the HTTP stack answered a bare 400 with no
/// body. Only between requests (every head read has been answered): a parser error in the middle of
/// a request goes on to that request's handler, which answers it.
final class UnparsableHeadHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    private let logger: Logger
    /// Request heads read, and responses written to their end: no request is open while they are equal.
    private var headsRead = 0
    private var responsesSent = 0
    private var answered = false

    init(logger: Logger) {
        self.logger = logger
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if case .head = unwrapInboundIn(data) { headsRead += 1 }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if case .end = unwrapOutboundIn(data) { responsesSent += 1 }
        context.write(data, promise: promise)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        guard let error = error as? HTTPParserError, headsRead == responsesSent else {
            context.fireErrorCaught(error)
            return
        }
        // The decoder reads nothing more after an error; one answer, then the connection ends.
        guard !answered else { return }
        answered = true
        let problem = Self.problem(for: error)
        // Every response carries a request id; this request had no readable header to offer one.
        let requestID = String(UInt64.random(in: .min ... .max), radix: 16)
        logger.info(
            "refused a request head the HTTP parser could not read",
            metadata: [
                "request_id": "\(requestID)", "code": "\(problem.code)", "error": "\(error.debugDescription)",
                "remote": "\(context.channel.remoteAddress.map { "\($0)" } ?? "-")",
            ]
        )
        let body = (try? problem.encodedBody()) ?? ByteBuffer()
        let head = HTTPResponse(
            status: problem.status,
            headerFields: [
                .contentType: "application/problem+json", .contentLength: "\(body.readableBytes)", .connection: "close",
                .requestID: requestID,
            ]
        )
        context.write(wrapOutboundOut(.head(head)), promise: nil)
        context.write(wrapOutboundOut(.body(body)), promise: nil)
        let channel = context.channel
        context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { _ in channel.close(promise: nil) }
    }

    /// 431 for a head over the configured size limits, 400 for anything else that is not HTTP/1.1.
    static func problem(for error: HTTPParserError) -> Problem {
        if case .headerOverflow = error {
            return Problem(
                status: .requestHeaderFieldsTooLarge, code: "headers_too_large", title: "Request headers too large",
                detail: "the request's header fields exceed the server's limits"
            )
        }
        return Problem(
            status: .badRequest, code: "malformed_request", title: "Malformed request",
            detail: "the request's head is not valid HTTP/1.1: \(error.debugDescription)"
        )
    }
}
