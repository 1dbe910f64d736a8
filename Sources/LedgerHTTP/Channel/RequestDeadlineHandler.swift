import Logging
import NIOCore
import NIOHTTPTypes

/// Closes a connection whose next request has not been read in full within `timeout` of the
/// connection being free for it (opened, or the previous response sent).
///
/// The idle timeout closes a client that goes silent; this closes one that sends a byte now and
/// then (slowloris). The idle timeout counts parsed HTTP parts, not bytes, so a body trickled a
/// byte at a time refreshes it forever, and a trickled head lasts the whole idle timeout. The clock
/// stops while a request is being answered, so a long answer such as the NDJSON feed is never cut off;
/// an answer whose end is queued while more of it waits than the socket can take (the channel is
/// unwritable) starts the clock only once the channel is writable again, since closing drops what
/// NIO still holds. ``WriteStallHandler`` closes a client that takes none of it meanwhile.
final class RequestDeadlineHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    private let timeout: TimeAmount
    private let logger: Logger
    /// The pending check of the clock, if any. It is not moved at every request (a timer scheduled and
    /// cancelled per request was a measurable part of an entitlement read's CPU): when it fires, it
    /// closes the connection, lapses, or schedules itself again for the clock's current deadline.
    private var check: Scheduled<Void>?
    /// When the clock last started, or nil while it is stopped (a request is being answered).
    private var clockStarted: NIODeadline?
    /// Requests read to their end, and responses written to theirs: the clock runs while they are equal.
    private var requestsRead = 0
    private var responsesSent = 0
    /// A response ended while the channel was unwritable: the clock starts when it becomes writable.
    private var startWhenWritable = false

    init(timeout: TimeAmount, logger: Logger) {
        self.timeout = timeout
        self.logger = logger
    }

    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { start(context) }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        cancel()
    }

    func channelActive(context: ChannelHandlerContext) {
        start(context)
        context.fireChannelActive()
    }

    func channelInactive(context: ChannelHandlerContext) {
        cancel()
        context.fireChannelInactive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if case .end = unwrapInboundIn(data) {
            requestsRead += 1
            // Answered already (a 413 sent early): the connection is free for the next request.
            if requestsRead > responsesSent {
                clockStarted = nil
                startWhenWritable = false
            } else {
                start(context)
            }
        }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if case .end = unwrapOutboundIn(data) {
            responsesSent += 1
            // Also after an early answer (a 413 before its body ends): the rest must come in time too.
            if responsesSent >= requestsRead {
                if context.channel.isWritable { start(context) } else { startWhenWritable = true }
            }
        }
        context.write(data, promise: promise)
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        if startWhenWritable, context.channel.isWritable {
            startWhenWritable = false
            start(context)
        }
        context.fireChannelWritabilityChanged()
    }

    /// Starts the clock from now; a check already pending comes first and moves itself on.
    private func start(_ context: ChannelHandlerContext) {
        let now = context.eventLoop.now
        clockStarted = now
        if check == nil { schedule(context, at: now + timeout) }
    }

    private func schedule(_ context: ChannelHandlerContext, at deadline: NIODeadline) {
        let bound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        check = context.eventLoop.scheduleTask(deadline: deadline) {
            let (handler, context) = bound.value
            handler.checkClock(context)
        }
    }

    private func checkClock(_ context: ChannelHandlerContext) {
        check = nil
        guard let started = clockStarted else { return }
        let deadline = started + timeout
        guard deadline <= context.eventLoop.now else {
            schedule(context, at: deadline)
            return
        }
        let channel = context.channel
        logger.info(
            "closing a connection whose request was not read within the request timeout",
            metadata: ["timeout_seconds": "\(timeout.nanoseconds / 1_000_000_000)", "remote": "\(channel.remoteAddress.map { "\($0)" } ?? "-")"]
        )
        channel.close(promise: nil)
    }

    private func cancel() {
        check?.cancel()
        check = nil
        clockStarted = nil
    }
}
