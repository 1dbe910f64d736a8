import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import NIOHTTP1
import NIOHTTPTypes

/// Answers a request head the HTTP parser refuses with a problem+json error, then ends the
/// connection; a `CONNECT` head likewise, since this server is not a proxy, and a head whose
/// Transfer-Encoding is more than `chunked`, which the parser takes but does not decode.
///
/// Such a head never reaches a route, so without this the HTTP stack answered a bare 400 with no
/// body. A head that follows requests still being answered (pipelined) is answered after them, and
/// one the client cut short by closing its side is answered while the connection can still write. A
/// parser error inside a request's body goes on to that request's handler, which answers it, unless
/// the request was answered already (an early 413): then the connection just ends, since one request
/// gets one answer. Bytes after a request that asked to close get no answer at all.
///
/// `CONNECT` parses, but its answer went out as a 404 without its body (HTTP/1.1 gives a response to
/// CONNECT no body framing) and the parser, taking what followed for a tunnel's bytes, read no more
/// requests, so a pipelined request hung until the idle timeout.
final class UnparsableHeadHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    private enum State {
        /// Reading requests.
        case reading
        /// A head was refused; its answer waits for the responses to the requests before it.
        case waiting(Problem, log: String)
        /// The answer is written: what the client still sends is read and dropped.
        case answered
    }

    private let logger: Logger
    private var state = State.reading
    /// Request heads and ends read, and responses written to their end.
    private var headsRead = 0
    private var endsRead = 0
    private var responsesSent = 0

    init(logger: Logger) {
        self.logger = logger
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard case .reading = state else {
            // A head was refused: it, and whatever follows it, is no request of the router's.
            return
        }
        switch unwrapInboundIn(data) {
        case .head(let head) where head.method == .connect:
            refuse(Self.connectProblem, log: "refused a CONNECT request: this server is not a proxy", context: context)
            return
        case .head(let head):
            if let sent = Self.unsupportedTransferCoding(head.headerFields) {
                refuse(Self.transferCodingProblem(sent), log: "refused a request whose transfer coding the server does not decode", context: context)
                return
            }
            headsRead += 1
        case .end: endsRead += 1
        case .body: break
        }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        guard case .end = unwrapOutboundIn(data) else {
            context.write(data, promise: promise)
            return
        }
        responsesSent += 1
        context.write(data, promise: promise)
        if case .waiting(let problem, let log) = state, responsesSent == headsRead {
            answer(problem, log: log, context: context)
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        switch state {
        case .waiting, .answered:
            // The decoder refuses every byte after its error; the answer is given or on its way.
            return
        case .reading:
            break
        }
        guard let parserError = error as? HTTPParserError, context.channel.isActive else {
            // Not the parser's, or the connection is already gone: nothing to answer here.
            context.fireErrorCaught(error)
            return
        }
        if case .closedConnection = parserError {
            // Bytes after a request that asked to close: not a request (RFC 9112 §9.6). Its answer
            // says `Connection: close` and the connection ends after it; these get no answer.
            state = .answered
            logger.debug("dropped bytes sent after a request that asked to close the connection")
            if responsesSent == headsRead { context.close(promise: nil) }
            return
        }
        if endsRead < headsRead {
            // Broken framing inside a request's body. Unanswered, its handler answers it; answered
            // early (a 413 before the body ended), the connection ends without a second answer.
            if responsesSent < headsRead {
                context.fireErrorCaught(error)
            } else {
                state = .answered
                context.close(promise: nil)
            }
            return
        }
        refuse(Self.problem(for: parserError), log: "refused a request head the HTTP parser could not read", context: context)
    }

    /// Answers `problem` once the requests before it are answered.
    private func refuse(_ problem: Problem, log: String, context: ChannelHandlerContext) {
        if responsesSent == headsRead {
            answer(problem, log: log, context: context)
        } else {
            state = .waiting(problem, log: log)
        }
    }

    /// Writes the problem and closes the connection's output, as Hummingbird does after its own parse
    /// errors; the client's close (or the idle timeout) ends the connection, and bytes it is still
    /// sending meanwhile are read and dropped.
    private func answer(_ problem: Problem, log: String, context: ChannelHandlerContext) {
        state = .answered
        // Every response carries a request id, made as `RequestIDMiddleware` makes one for a request
        // that offers none; this one had no readable header to offer it.
        let requestID = RequestID().description
        logger.info(
            "\(log)",
            metadata: [
                // As every refused request's line: the code and the words the client was told.
                "request_id": "\(requestID)", "code": "\(problem.code)", "error": "\(problem.code): \(problem.detail)",
                "remote": "\(context.channel.remoteAddress.map { "\($0)" } ?? "-")",
            ]
        )
        let body = (try? problem.encodedBody()) ?? ByteBuffer()
        var head = HTTPResponse(
            status: problem.status,
            headerFields: [
                .contentType: Problem.contentType, .contentLength: "\(body.readableBytes)", .connection: "close",
                .requestID: requestID,
            ]
        )
        if problem.status == .methodNotAllowed {
            // Required in a 405; empty, as no method is served for a tunnel's target (RFC 9110 §10.2.1).
            // NIO sends no body in any answer to CONNECT, so the answer names no content type either.
            head.headerFields[.allow] = ""
            head.headerFields[.contentType] = nil
        }
        context.write(wrapOutboundOut(.head(head)), promise: nil)
        context.write(wrapOutboundOut(.body(body)), promise: nil)
        let channel = context.channel
        context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { _ in
            channel.close(mode: .output).whenFailure { _ in channel.close(promise: nil) }
        }
    }

    /// 405 for `CONNECT`, which asks for a tunnel to another host.
    static let connectProblem = Problem(
        status: .methodNotAllowed, code: "method_not_allowed", title: "Method not allowed",
        detail: "CONNECT asks for a tunnel to another host, which this server does not offer: it is not a proxy"
    )

    /// A request's Transfer-Encoding as sent, unless it is `chunked` alone (or absent), the one coding
    /// the server decodes. The parser takes any list ending in `chunked` and decodes only that, so a
    /// `gzip, chunked` body reached a route still compressed; one not ending in it failed only in the
    /// body.
    static func unsupportedTransferCoding(_ fields: HTTPFields) -> String? {
        let values = fields[values: .transferEncoding]
        guard !values.isEmpty else { return nil }
        let codings = values.flatMap { $0.split(separator: ",", omittingEmptySubsequences: false) }
            .map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
        guard codings != ["chunked"] else { return nil }
        return values.joined(separator: ", ")
    }

    /// 400, as for a coding the parser itself refuses (one that does not end in `chunked`).
    static func transferCodingProblem(_ sent: String) -> Problem {
        Problem(
            status: .badRequest, code: "malformed_request", title: "Malformed request",
            detail: "the request's Transfer-Encoding is \(sent), and the server decodes chunked alone: send the body as it is, with Content-Length or Transfer-Encoding: chunked"
        )
    }

    /// 431 for a head over the parser's size limits, 400 for anything else that is not HTTP/1.1.
    ///
    /// The parser counts the URL as one more field of the head and reports its overflow the same
    /// way, so a URL over the limit is a 431 too, not a 414: the detail says so.
    static func problem(for error: HTTPParserError) -> Problem {
        if case .headerOverflow = error {
            return Problem(
                status: .requestHeaderFieldsTooLarge, code: "headers_too_large", title: "Request headers too large",
                detail: "the request's head exceeds the server's limits: the URL and each header field must stay within \(RequestHeadLimits.fieldBytes / 1024) KiB, all of them together within \(RequestHeadLimits.headBytes / 1024) KiB, with at most \(RequestHeadLimits.fieldCount) header fields"
            )
        }
        return Problem(
            status: .badRequest, code: "malformed_request", title: "Malformed request",
            detail: "the request's head is not valid HTTP/1.1: \(error.explanation)"
        )
    }
}
