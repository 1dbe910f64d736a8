import HTTPTypes
import Logging
import NIOCore
import NIOEmbedded
import NIOHTTPTypes
import Testing

@testable import LedgerHTTP

/// The request and write-stall clocks on a channel whose time and writes the test controls: when
/// each starts, and that neither closes a connection that is still taking its answer.
struct ConnectionClockTests {
    private static let timeout = TimeAmount.seconds(2)

    /// A connected channel with `handler`, on an event loop whose time moves only when told.
    private static func channel(with handler: some ChannelHandler) throws -> EmbeddedChannel {
        let channel = EmbeddedChannel()
        try channel.pipeline.syncOperations.addHandler(handler)
        try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 8080)).wait()
        return channel
    }

    /// Reads a whole GET request.
    private static func request(on channel: EmbeddedChannel) throws {
        try channel.writeInbound(HTTPRequestPart.head(HTTPRequest(method: .get, scheme: nil, authority: "x", path: "/v1/events")))
        try channel.writeInbound(HTTPRequestPart.end(nil))
    }

    /// The answer's end is queued, not yet written to the socket, for longer than the timeout:
    /// the connection stays. The next request's clock starts once it is written.
    @Test func theNextRequestsClockStartsWhenTheAnswerHasLeftForTheSocket() throws {
        let channel = try Self.channel(with: RequestDeadlineHandler(timeout: Self.timeout, logger: Logger(label: "test")))
        try Self.request(on: channel)
        channel.write(HTTPResponsePart.head(HTTPResponse(status: .ok)), promise: nil)
        channel.write(HTTPResponsePart.end(nil), promise: nil)
        channel.embeddedEventLoop.advanceTime(by: .seconds(5))
        #expect(channel.isActive, "closed while the answer was still queued")

        channel.flush()
        channel.embeddedEventLoop.advanceTime(by: .milliseconds(1900))
        #expect(channel.isActive, "closed before the timeout after the answer was written")
        channel.embeddedEventLoop.advanceTime(by: .milliseconds(200))
        #expect(!channel.isActive, "kept a connection whose next request did not come in the timeout")
    }

    /// A request read before the previous answer has been written is being answered when that write
    /// completes: its clock does not start then.
    @Test func aPipelinedRequestReadBeforeTheAnswerWasWrittenStopsTheClock() throws {
        let channel = try Self.channel(with: RequestDeadlineHandler(timeout: Self.timeout, logger: Logger(label: "test")))
        try Self.request(on: channel)
        channel.write(HTTPResponsePart.head(HTTPResponse(status: .ok)), promise: nil)
        channel.write(HTTPResponsePart.end(nil), promise: nil)
        try Self.request(on: channel)
        channel.flush()
        channel.embeddedEventLoop.advanceTime(by: .seconds(10))
        #expect(channel.isActive, "closed a connection whose second request was being answered")
    }

    /// Unwritable for the whole timeout, with no way to see the client's progress (no socket):
    /// closed. Writable again before it: kept, and the next stall has a clock of its own.
    @Test func aStallWithoutProgressClosesTheConnectionAfterTheTimeout() throws {
        let channel = try Self.channel(with: WriteStallHandler(timeout: Self.timeout, logger: Logger(label: "test")))
        channel.isWritable = false
        channel.pipeline.fireChannelWritabilityChanged()
        channel.embeddedEventLoop.advanceTime(by: .milliseconds(1500))
        channel.isWritable = true
        channel.pipeline.fireChannelWritabilityChanged()
        channel.embeddedEventLoop.advanceTime(by: .seconds(5))
        #expect(channel.isActive, "closed a connection that became writable within the timeout")

        channel.isWritable = false
        channel.pipeline.fireChannelWritabilityChanged()
        channel.embeddedEventLoop.advanceTime(by: .milliseconds(1900))
        #expect(channel.isActive, "closed before the timeout")
        channel.embeddedEventLoop.advanceTime(by: .milliseconds(200))
        #expect(!channel.isActive, "kept a connection that took nothing for the timeout")
    }
}
