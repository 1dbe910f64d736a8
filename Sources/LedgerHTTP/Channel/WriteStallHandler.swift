import Logging
import NIOCore
import NIOHTTPTypes

/// Closes a connection whose client has taken none of its answer for `timeout`: the channel stayed
/// unwritable (more queued for it than NIO's high-water mark) and the client's TCP acknowledged no
/// more of it (``AcknowledgedBytes``) the whole time.
///
/// The idle and request timeouts stop while a request is being answered, so a long answer such as
/// the NDJSON feed is never cut off. Without this, a client that stopped reading held its connection,
/// and the memory of the answer queued for it, for as long as it liked. A client that reads slowly
/// keeps it: the kernel makes room in a full socket only in steps of about a third of its send
/// buffer, so the channel can stay unwritable for long while the client takes a few kilobytes a
/// second, but every byte it takes is acknowledged. Any progress counts, so a client taking a packet
/// a timeout keeps its connection (``ConnectionLimit`` bounds how many can). Where the count cannot
/// be read (not Linux), only the channel's becoming writable again starts the clock over.
final class WriteStallHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart

    /// What is known of the client's progress while the channel is unwritable.
    private struct Stall {
        /// Tells a look that returns after the stall ended (or another began) from a current one.
        var id: UInt64
        /// The bytes the client had acknowledged at the last look, if that could be read.
        var acknowledged: UInt64?
        /// When the channel became unwritable or, later, the client last acknowledged more.
        var progressedAt: NIODeadline
        /// The next look.
        var next: Scheduled<Void>?
    }

    private let timeout: TimeAmount
    /// How often the client's progress is read while the channel is unwritable: a quarter of the
    /// timeout, so a client is closed at most a quarter late and read a few times per timeout.
    private let interval: TimeAmount
    private let logger: Logger
    /// Reads the client's acknowledged bytes; ``AcknowledgedBytes/read(from:)`` but in tests.
    private let acknowledgedBytes: @Sendable (any Channel) -> EventLoopFuture<UInt64?>
    private var stall: Stall?
    private var stalls: UInt64 = 0

    init(
        timeout: TimeAmount, logger: Logger,
        acknowledgedBytes: @escaping @Sendable (any Channel) -> EventLoopFuture<UInt64?> = AcknowledgedBytes.read(from:)
    ) {
        self.timeout = timeout
        self.interval = .nanoseconds(max(1, timeout.nanoseconds / 4))
        self.logger = logger
        self.acknowledgedBytes = acknowledgedBytes
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        if context.channel.isWritable {
            cancel()
        } else if stall == nil {
            // The first look is an interval in: the channel turns unwritable often while a fast
            // client takes a long answer, and most of those stalls end before it.
            stalls += 1
            stall = Stall(id: stalls, acknowledged: nil, progressedAt: context.eventLoop.now, next: nil)
            stall?.next = schedule(context, in: interval, id: stalls)
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

    /// Reads the client's progress for the stall `id`.
    private func look(_ context: ChannelHandlerContext, id: UInt64) {
        let bound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        acknowledgedBytes(context.channel).whenSuccess { acknowledged in
            let (handler, context) = bound.value
            handler.saw(acknowledged, context, id: id)
        }
    }

    /// Restarts the clock if the client acknowledged more since the last look, closes the
    /// connection once `timeout` has passed without, and otherwise looks again later.
    private func saw(_ acknowledged: UInt64?, _ context: ChannelHandlerContext, id: UInt64) {
        guard var stall, stall.id == id else { return }
        let now = context.eventLoop.now
        if let acknowledged, let before = stall.acknowledged, acknowledged > before {
            stall.progressedAt = now
        }
        stall.acknowledged = acknowledged
        let left = stall.progressedAt + timeout - now
        if left <= .zero {
            self.stall = nil
            close(context)
            return
        }
        stall.next = schedule(context, in: min(left, interval), id: id)
        self.stall = stall
    }

    /// A look at the client's progress for the stall `id`, `delay` from now.
    private func schedule(_ context: ChannelHandlerContext, in delay: TimeAmount, id: UInt64) -> Scheduled<Void> {
        let bound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        return context.eventLoop.scheduleTask(in: delay) {
            let (handler, context) = bound.value
            handler.look(context, id: id)
        }
    }

    private func close(_ context: ChannelHandlerContext) {
        let channel = context.channel
        logger.info(
            "closing a connection whose client took none of its answer within the request timeout",
            metadata: ["timeout_seconds": "\(timeout.nanoseconds / 1_000_000_000)", "remote": "\(channel.remoteAddress.map { "\($0)" } ?? "-")"]
        )
        channel.close(promise: nil)
    }

    private func cancel() {
        stall?.next?.cancel()
        stall = nil
    }
}
