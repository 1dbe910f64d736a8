import Logging
import NIOCore
import NIOHTTPTypes

/// Closes a connection that has taken none of its answer for `timeout`: the channel stayed
/// unwritable (more queued for it than NIO's high-water mark) the whole time.
///
/// The idle and request timeouts stop while a request is being answered, so a long answer such as
/// the NDJSON feed is never cut off. Without this, a client that stopped reading held its connection,
/// and the memory of the answer queued for it, for as long as it liked. A client that reads lets the
/// server queue more, which makes the channel writable and starts the clock over; but the kernel
/// gives a full socket room only in steps of about a third of its send buffer, so a client reading
/// a few kilobytes a second while megabytes are in flight can still be cut off (docs/api.md).
final class WriteStallHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart

    private let timeout: TimeAmount
    private let logger: Logger
    /// The close pending while the channel is unwritable.
    private var stall: Scheduled<Void>?

    init(timeout: TimeAmount, logger: Logger) {
        self.timeout = timeout
        self.logger = logger
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        if context.channel.isWritable {
            cancel()
        } else if stall == nil {
            let bound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
            stall = context.eventLoop.scheduleTask(in: timeout) {
                let (handler, context) = bound.value
                handler.close(context)
            }
        }
        context.fireChannelWritabilityChanged()
    }

    func channelInactive(context: ChannelHandlerContext) {
        cancel()
        context.fireChannelInactive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        cancel()
    }

    private func close(_ context: ChannelHandlerContext) {
        stall = nil
        let channel = context.channel
        logger.info(
            "closing a connection that took none of its answer within the request timeout",
            metadata: ["timeout_seconds": "\(timeout.nanoseconds / 1_000_000_000)", "remote": "\(channel.remoteAddress.map { "\($0)" } ?? "-")"]
        )
        channel.close(promise: nil)
    }

    private func cancel() {
        stall?.cancel()
        stall = nil
    }
}
