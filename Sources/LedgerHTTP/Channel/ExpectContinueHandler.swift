import NIOCore
import NIOHTTP1

/// Answers a request's `Expect: 100-continue` with `100 Continue`, which Hummingbird does not send.
///
/// A client that asks waits for it before sending its body (curl above 1 MiB, older libcurl above
/// 1 KiB: most receipts), and without it sent the body only after its own timer, a second later on
/// every such request. It is sent as soon as the head is read, before any route has looked at it;
/// one answered before its body is read (401 from the key check, 404, 405) then has the rest of its
/// body read and dropped, as without `Expect`. A request pipelined behind answers still being
/// written gets its 100 once they are written, never inside one. HTTP/1.0 requests get none
/// (RFC 9110 §10.1.1).
///
/// A request whose `Content-Length` is over the body limit gets no 100 either: its route answers
/// 413 from the header alone, so the client need not send the body. Such a request is marked
/// `Connection: close`, since the client may then send the body or not, and only closing tells the
/// two apart: reading on, the server would take its next request for the rest of this body.
final class ExpectContinueHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart
    typealias OutboundIn = HTTPServerResponsePart
    typealias OutboundOut = HTTPServerResponsePart

    /// Request heads read, and responses written to their end, on this connection.
    private var headsRead = 0
    private var responsesEnded = 0
    /// Requests whose 100 waits for the answers before theirs: their place among the heads read.
    private var waiting: [(request: Int, version: HTTPVersion)] = []

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if case .head(let head) = unwrapInboundIn(data) {
            headsRead += 1
            if head.version.major == 1, head.version.minor >= 1, Self.expectsContinue(head.headers) {
                if let length = ContentLength(head.headers["content-length"]), length.bytes > LedgerRequestContext.maximumBodySize {
                    var closing = head
                    closing.headers.replaceOrAdd(name: "connection", value: "close")
                    context.fireChannelRead(wrapInboundOut(.head(closing)))
                    return
                }
                waiting.append((headsRead, head.version))
                sendDue(context: context)
            }
        }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        let isEnd = if case .end = unwrapOutboundIn(data) { true } else { false }
        context.write(data, promise: promise)
        if isEnd {
            responsesEnded += 1
            sendDue(context: context)
        }
    }

    /// Writes the 100 of each waiting request whose earlier requests are all answered.
    private func sendDue(context: ChannelHandlerContext) {
        while let next = waiting.first, next.request <= responsesEnded + 1 {
            waiting.removeFirst()
            // A request already answered (the connection's answers ran ahead) gets no 100 after it.
            guard next.request == responsesEnded + 1 else { continue }
            context.writeAndFlush(wrapOutboundOut(.head(HTTPResponseHead(version: next.version, status: .continue))), promise: nil)
        }
    }

    /// Whether `headers` hold the `100-continue` expectation, in any letter case.
    static func expectsContinue(_ headers: HTTPHeaders) -> Bool {
        headers[canonicalForm: "expect"].contains { $0.lowercased() == "100-continue" }
    }
}
