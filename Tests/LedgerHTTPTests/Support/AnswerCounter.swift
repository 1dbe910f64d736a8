import NIOCore
import Synchronization

/// Counts the HTTP/1.1 status lines a raw test connection receives.
final class AnswerCounter: ChannelInboundHandler, Sendable {
    typealias InboundIn = ByteBuffer
    let count = Mutex(0)

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let text = String(buffer: unwrapInboundIn(data))
        count.withLock { $0 += text.components(separatedBy: "HTTP/1.1 200").count - 1 }
    }
}
