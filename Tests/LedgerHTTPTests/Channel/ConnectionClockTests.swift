import HTTPTypes
import Logging
import NIOCore
import NIOEmbedded
import NIOHTTPTypes
import Synchronization
import Testing

@testable import LedgerHTTP

/// The request and write-stall clocks on a channel whose time, writability and client progress the
/// test controls: when each clock starts, and that neither closes a connection still taking its answer.
struct ConnectionClockTests {
    private static let timeout = TimeAmount.seconds(2)

    /// A connected channel with `handler`, on an event loop whose time moves only when told.
    private static func channel(with handler: some ChannelHandler) throws -> EmbeddedChannel {
        let channel = EmbeddedChannel()
        try channel.pipeline.syncOperations.addHandler(handler)
        try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 8080)).wait()
        return channel
    }

    private static func requestDeadline() -> RequestDeadlineHandler {
        RequestDeadlineHandler(timeout: timeout, logger: Logger(label: "test"))
    }

    /// Reads a whole GET request.
    private static func request(on channel: EmbeddedChannel) throws {
        try channel.writeInbound(HTTPRequestPart.head(HTTPRequest(method: .get, scheme: nil, authority: "x", path: "/v1/events")))
        try channel.writeInbound(HTTPRequestPart.end(nil))
    }

    /// Writes a whole answer.
    private static func answer(on channel: EmbeddedChannel) {
        channel.write(HTTPResponsePart.head(HTTPResponse(status: .ok)), promise: nil)
        channel.write(HTTPResponsePart.end(nil), promise: nil)
    }

    private static func setWritable(_ writable: Bool, _ channel: EmbeddedChannel) {
        channel.isWritable = writable
        channel.pipeline.fireChannelWritabilityChanged()
    }

    /// A channel with the request clock that has read a request and queued its whole answer while
    /// the socket could take no more.
    private static func answeredWhileUnwritable() throws -> EmbeddedChannel {
        let channel = try channel(with: requestDeadline())
        try request(on: channel)
        setWritable(false, channel)
        answer(on: channel)
        return channel
    }

    /// Moves time on and expects the connection still open at `open` from now and closed at
    /// `open + 200 ms`: `why` names what should have closed it.
    private static func expectClosed(
        _ channel: EmbeddedChannel, after open: TimeAmount, why: Comment, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        channel.embeddedEventLoop.advanceTime(by: open)
        #expect(channel.isActive, "closed too early", sourceLocation: sourceLocation)
        channel.embeddedEventLoop.advanceTime(by: .milliseconds(200))
        #expect(!channel.isActive, why, sourceLocation: sourceLocation)
    }

    /// An answer written while the socket can take it: the next request's clock starts at its end.
    @Test func theNextRequestsClockStartsAtTheAnswersEnd() throws {
        let channel = try Self.channel(with: Self.requestDeadline())
        try Self.request(on: channel)
        channel.embeddedEventLoop.advanceTime(by: .seconds(5))
        Self.answer(on: channel)
        Self.expectClosed(channel, after: .milliseconds(1900), why: "kept a connection whose next request did not come in the timeout")
    }

    /// An answer whose end is queued while more of it waits than the socket takes: the clock starts
    /// only once the channel is writable again, however long that takes.
    @Test func anAnswerStillLeavingHoldsTheClockUntilTheChannelIsWritable() throws {
        let channel = try Self.answeredWhileUnwritable()
        channel.embeddedEventLoop.advanceTime(by: .seconds(10))
        #expect(channel.isActive, "closed while the answer was still leaving")

        Self.setWritable(true, channel)
        Self.expectClosed(channel, after: .milliseconds(1900), why: "kept a connection whose next request did not come in the timeout")
    }

    /// A request read in full while the previous answer is still leaving is being answered when the
    /// channel becomes writable: its clock does not start then.
    @Test func aRequestReadWhileTheAnswerLeavesIsNotTimed() throws {
        let channel = try Self.answeredWhileUnwritable()
        try Self.request(on: channel)
        Self.setWritable(true, channel)
        channel.embeddedEventLoop.advanceTime(by: .seconds(10))
        #expect(channel.isActive, "closed a connection whose second request was being answered")
        // Once that request is answered, the clock runs again.
        Self.answer(on: channel)
        Self.expectClosed(channel, after: .milliseconds(1900), why: "kept a connection whose next request did not come in the timeout")
    }

    /// Unwritable for the whole timeout and no count of the client's progress (no socket): closed.
    /// Writable again before it: kept, and the next stall has a clock of its own.
    @Test func aStallWithoutProgressClosesTheConnectionAfterTheTimeout() throws {
        let channel = try Self.channel(with: WriteStallHandler(timeout: Self.timeout, logger: Logger(label: "test")))
        Self.setWritable(false, channel)
        channel.embeddedEventLoop.advanceTime(by: .milliseconds(1500))
        Self.setWritable(true, channel)
        channel.embeddedEventLoop.advanceTime(by: .seconds(5))
        #expect(channel.isActive, "closed a connection that became writable within the timeout")

        Self.setWritable(false, channel)
        Self.expectClosed(channel, after: .milliseconds(1900), why: "kept a connection that took nothing for the timeout")
    }

    /// Unwritable for five timeouts while the client acknowledges a little more each second: kept.
    /// Once the count stops growing, closed within the timeout and one look (a quarter of it).
    @Test func aClientAcknowledgingProgressKeepsItsConnectionUntilItStops() throws {
        let acknowledged = Mutex<UInt64>(1_000)
        let handler = WriteStallHandler(timeout: Self.timeout, logger: Logger(label: "test")) { channel in
            channel.eventLoop.makeSucceededFuture(acknowledged.withLock { $0 })
        }
        let channel = try Self.channel(with: handler)
        Self.setWritable(false, channel)
        for _ in 0..<10 {
            acknowledged.withLock { $0 += 1_448 }
            channel.embeddedEventLoop.advanceTime(by: .seconds(1))
        }
        #expect(channel.isActive, "closed a connection whose client kept acknowledging")

        // The last growth (at 9 s) is seen by the look at 9.5 s, so the close is due at 11.5 s.
        Self.expectClosed(channel, after: .milliseconds(1400), why: "kept a connection whose client stopped acknowledging")
    }
}
