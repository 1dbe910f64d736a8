import AppStoreTesting
import EventStore
import EventStoreTesting
import Foundation
import HummingbirdTesting
import Ledger
import LedgerHTTP
import NIOCore
import NIOPosix
import Testing

/// Slow clients cannot hold connections: one that stops sending is closed after the idle timeout,
/// one that trickles bytes after the request timeout; nothing of their half requests is recorded.
/// A client that sends whole requests keeps its connection however long it stays.
struct SlowClientTests {
    /// Headers and all but the last byte of a signed notification's body, then silence: what came
    /// holds the whole notification, yet the connection is closed after the idle timeout and nothing
    /// is recorded (the same request sent whole afterwards is).
    @Test func aClientThatStopsMidRequestIsDisconnectedAfterTheIdleTimeout() async throws {
        let notification = try Self.signedNotification()
        try await RawConnection.withServer(idleTimeout: .seconds(1), requestTimeout: .seconds(60)) { channel, _, eventCount in
            let port = try #require(channel.remoteAddress?.port)
            // The server's idle clock starts at its last read, which is after this write begins, so
            // measure from before it (measuring from after it once gave 0.89 s on a loaded machine).
            let start = ContinuousClock.now
            try await channel.writeAndFlush(ByteBuffer(bytes: notification.request.dropLast())).get()
            #expect(try await RawConnection.closes(channel, within: .seconds(15)), "the server kept a silent connection open for 15 s")
            #expect(ContinuousClock.now - start >= .milliseconds(900))
            #expect(try await eventCount() == 0)
            try await Self.expectRecordedWhenSentWhole(notification.request, port: port, eventCount: eventCount)
        }
    }

    /// A byte every 300 ms: the body's bytes each reach the idle timeout's clock as a part, so only
    /// the request timeout ends them; the head's do not, and the idle timeout is set long here.
    /// Trickling the body, the head and the whole JSON object go at once and only the padding after
    /// it is trickled, 12 s of it: a server that waited for it all would record the notification
    /// within the 15 s the test waits.
    @Test(arguments: ["the head", "the body"])
    func aClientThatTricklesBytesIsDisconnectedAfterTheRequestTimeout(trickling: String) async throws {
        let notification = try Self.signedNotification()
        let sentAtOnce = trickling == "the body" ? notification.objectEnd : 0
        try await RawConnection.withServer(idleTimeout: .seconds(30), requestTimeout: .seconds(2)) { channel, connecting, eventCount in
            let port = try #require(channel.remoteAddress?.port)
            let request = notification.request
            // The request timeout counts from when the server accepted the connection, so measure from
            // just before connecting: a loaded machine may pause this task after the connect.
            if sentAtOnce > 0 { try await channel.writeAndFlush(ByteBuffer(bytes: request[..<sentAtOnce])).get() }
            let closed = try await Self.closesWhileTrickling(request[sentAtOnce...], on: channel)
            #expect(closed, "the server kept a connection trickling \(trickling) open for 15 s")
            let took = ContinuousClock.now - connecting
            #expect(took >= .milliseconds(1900) && took < .seconds(10), "closed after \(took)")
            #expect(try await eventCount() == 0)
            try await Self.expectRecordedWhenSentWhole(request, port: port, eventCount: eventCount)
        }
    }

    /// A client that stops reading its answer is closed the request timeout after its TCP last
    /// acknowledged any of it, with more queued than the socket holds: the feed of 8 MB it asked
    /// for no longer holds the connection, and the answer's memory, for as long as the client likes.
    /// The server closed it before the end, so the client, reading again, gets less than the whole
    /// feed, then the end of the connection.
    @Test func aClientThatStopsReadingItsAnswerIsDisconnectedAfterTheRequestTimeout() async throws {
        try await Self.withPaddedFeedAsked { channel, answers in
            try await Task.sleep(for: .seconds(5))
            channel.setOption(.autoRead, value: true).whenSuccess { channel.read() }
            // Well inside the idle timeout, after which a finished answer's connection closes anyway.
            #expect(try await RawConnection.closes(channel, within: .seconds(15)), "the server kept a connection that read nothing")
            let received = answers.text.utf8.count
            #expect(received > 0 && received < Self.paddedFeedBytes, "read \(received) bytes")
        }
    }

    /// A stream keeps its place among `http.max_feed_streams` while its reader takes nothing: one
    /// more is answered 503 `too_many_streams` meanwhile, and once the stalled reader is disconnected
    /// the place is free again (security walkthrough: only `http.max_connections` bounded how many
    /// stalled streams, each holding megabytes, one read key could open).
    @Test func feedStreamsPastTheLimitAreRefusedUntilOneEnds() async throws {
        try await Self.withPaddedFeedAsked(maximumFeedStreams: 1) { channel, answers in
            let port = try #require(channel.remoteAddress?.port)
            // One read takes the stream's head: the stream holds its place from before its head is
            // written, so the next ask surely finds none (a fixed 500 ms could pass on a loaded
            // machine before the server reached the route).
            channel.read()
            _ = try await answers.waitFor("HTTP/1.1 200")
            let refused = try await Self.askFeed(port: port)
            #expect(refused.hasPrefix("HTTP/1.1 503"), "\(refused.prefix(300))")
            #expect(refused.contains(#""code":"too_many_streams""#), "\(refused.prefix(600))")
            // Past the request timeout (2 s) with nothing taken, the server has closed it; reading
            // again, the client finds the end.
            try await Task.sleep(for: .seconds(5))
            channel.setOption(.autoRead, value: true).whenSuccess { channel.read() }
            #expect(try await RawConnection.closes(channel, within: .seconds(15)), "the stalled reader was kept")
            // The place is freed as the stalled stream's task ends, just after its connection does.
            var answer = ""
            let deadline = ContinuousClock.now + .seconds(10)
            repeat {
                answer = try await Self.askFeed(port: port)
                if !answer.hasPrefix("HTTP/1.1 503") { break }
                try await Task.sleep(for: .milliseconds(100))
            } while ContinuousClock.now < deadline
            #expect(answer.hasPrefix("HTTP/1.1 200"), "\(answer.prefix(300))")
        }
    }

    /// A HEAD of the stream, answered without it, frees its place too: under a limit of one, three
    /// HEADs and then the stream itself are all answered.
    @Test func aHeadOfTheFeedStreamFreesItsPlace() async throws {
        try await RawConnection.withServer(idleTimeout: .seconds(30), requestTimeout: .seconds(10), adjusting: { $0.maximumFeedStreams = 1 }) { channel, _, _ in
            let answers = ReadRecorder()
            try await channel.pipeline.addHandler(answers).get()
            for _ in 0..<3 {
                let reads = answers.count
                try await channel.writeAndFlush(ByteBuffer(string: Self.feedRequest.replacingOccurrences(of: "GET ", with: "HEAD "))).get()
                _ = try await answers.waitForAnswer(after: reads)
            }
            try await channel.writeAndFlush(ByteBuffer(string: Self.feedRequest)).get()
            _ = try await answers.waitFor(Self.lastChunk)
            #expect(answers.okAnswers == 4, "\(answers.text.prefix(1200))")
            #expect(!answers.text.contains("too_many_streams"), "\(answers.text.prefix(1200))")
        }
    }

    /// A client that reads its answer slowly but steadily keeps its connection: reading a few
    /// kilobytes every 50 ms for three request timeouts, it takes too little for the server's
    /// channel to become writable again (the kernel makes room in steps of a third of a send buffer
    /// that has grown to megabytes), but every read is acknowledged progress. Reading fast
    /// afterwards, it gets the whole feed, to its last chunk. (Against a server that watched only
    /// writability, it got about 2.8 MB of the 8, then the end of the connection.)
    @Test func aClientThatReadsItsAnswerSlowlyKeepsItsConnection() async throws {
        try await Self.withPaddedFeedAsked { channel, answers in
            let slowlyRead = try await Self.readSlowlyThenFast(channel, answers)
            #expect(slowlyRead > 0 && slowlyRead < Self.paddedFeedBytes / 2, "read \(slowlyRead) bytes in the slow part")
            Self.expectWholeFeed(answers, events: Self.paddedEvents, open: channel.isActive)
        }
    }

    @Test func aKeepAliveClientSendingWholeRequestsOutlivesTheRequestTimeout() async throws {
        try await RawConnection.withServer(idleTimeout: .seconds(4), requestTimeout: .seconds(2)) { channel, _, _ in
            let answers = ReadRecorder()
            try await channel.pipeline.addHandler(answers).get()
            // Seven requests 500 ms apart: 3.5 s on one connection, well past the request timeout, with
            // 1.5 s of slack per gap for a loaded machine (600 ms gaps against a 1 s timeout once failed
            // in a full run).
            for _ in 0..<7 {
                try await channel.writeAndFlush(ByteBuffer(string: "GET /health HTTP/1.1\r\nHost: x\r\n\r\n")).get()
                try await Task.sleep(for: .milliseconds(500))
            }
            // The last answer may still be on its way on a loaded machine.
            let deadline = ContinuousClock.now + .seconds(10)
            while answers.okAnswers < 7, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(10)) }
            #expect(channel.isActive)
            #expect(answers.okAnswers == 7)
            try? await channel.close()
        }
    }

    /// Whole requests first, then a trickled one: its clock starts at the last answer, however long
    /// the connection has been open, and the server checks it again when an earlier deadline passes.
    /// The trickled request is a signed notification whose head and JSON object go at once and whose
    /// padding is trickled: cut off, it is not recorded (sent whole afterwards, it is).
    @Test func aTrickleAfterWholeRequestsIsDisconnectedTheRequestTimeoutAfterTheLastAnswer() async throws {
        let notification = try Self.signedNotification()
        try await RawConnection.withServer(idleTimeout: .seconds(30), requestTimeout: .seconds(2)) { channel, _, eventCount in
            let port = try #require(channel.remoteAddress?.port)
            let answers = ReadRecorder()
            try await channel.pipeline.addHandler(answers).get()
            // Three requests 800 ms apart: the last is answered about 1.6 s in, so the connection's
            // first deadline (2 s in) passes while the trickle's clock has run only about 0.4 s.
            for index in 0..<3 {
                if index > 0 { try await Task.sleep(for: .milliseconds(800)) }
                try await channel.writeAndFlush(ByteBuffer(string: "GET /health HTTP/1.1\r\nHost: x\r\n\r\n")).get()
            }
            let lastSent = ContinuousClock.now
            let request = notification.request
            try await channel.writeAndFlush(ByteBuffer(bytes: request[..<notification.objectEnd])).get()
            let closed = try await Self.closesWhileTrickling(request[notification.objectEnd...], on: channel)
            #expect(closed, "the server kept a trickling connection open for 15 s")
            let took = ContinuousClock.now - lastSent
            #expect(took >= .milliseconds(1900) && took < .seconds(10), "closed \(took) after the last whole request")
            #expect(answers.okAnswers == 3)
            #expect(try await eventCount() == 0)
            try await Self.expectRecordedWhenSentWhole(request, port: port, eventCount: eventCount)
        }
    }

    /// A validly signed V2 notification request, its head declaring the body's true length. The
    /// body is the JSON object and then `padding` spaces, which JSON allows after it: cut off
    /// anywhere in the padding, what has come is a whole notification, so a server that took a
    /// half-sent body for the whole would record it, as would one that waited for the rest. The
    /// 40 spaces take 12 s to trickle, inside the 15 s a test waits. `objectEnd` is where the
    /// object ends in the request.
    private static func signedNotification(padding: Int = 40) throws -> (request: [UInt8], objectEnd: Int) {
        let object = try APIHarness.signedRenewalBody()
        let body = object + String(repeating: " ", count: padding)
        let head = "POST /v1/apple/notifications/v2 HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n\r\n"
        return (Array((head + body).utf8), head.utf8.count + object.utf8.count)
    }

    /// Sends `request` whole on a new connection to `port` and expects it recorded: the request a
    /// test sent only part of would have been, so its `eventCount() == 0` is the server's doing.
    private static func expectRecordedWhenSentWhole(
        _ request: [UInt8], port: Int, eventCount: @Sendable () async throws -> Int,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws {
        let (channel, answers) = try await RawConnection.connect(port: port)
        try await channel.writeAndFlush(ByteBuffer(bytes: request)).get()
        let answer = try await answers.waitForAnswer(after: 0, sourceLocation: sourceLocation).text
        try? await channel.close()
        #expect(answer.hasPrefix("HTTP/1.1 200"), "\(answer.prefix(600))", sourceLocation: sourceLocation)
        #expect(answer.contains(#""result":"recorded""#), "\(answer.prefix(600))", sourceLocation: sourceLocation)
        #expect(try await eventCount() == 1, sourceLocation: sourceLocation)
    }

    private static let paddedEvents = 16
    /// The padding the feed's events carry, about 8 MB in all.
    private static let paddedFeedBytes = paddedEvents * 500_000

    /// A live server (request timeout 2 s) whose log holds 16 events of 500 KB of padding each, more
    /// than the loopback socket buffers hold, and a connection that reads only when told, which has
    /// asked for the whole NDJSON feed; `body` gets it and what it has read.
    private static func withPaddedFeedAsked(
        maximumFeedStreams: Int = LedgerApplication.Settings.defaultMaximumFeedStreams,
        _ body: @Sendable @escaping (any Channel, ReadRecorder) async throws -> Void
    ) async throws {
        let padding = String(repeating: "x", count: 500_000)
        try await RawConnection.withServer(idleTimeout: .seconds(30), requestTimeout: .seconds(2), reading: false, seed: { store in
            for index in 0..<paddedEvents {
                _ = try await store.append(to: "padding-\(index)", NewEvent(type: "padding", data: Data(#"{"padding":"\#(padding)"}"#.utf8)))
            }
        }, adjusting: { $0.maximumFeedStreams = maximumFeedStreams }) { channel, _, _ in
            let answers = ReadRecorder()
            try await channel.pipeline.addHandler(answers).get()
            try await channel.writeAndFlush(ByteBuffer(string: feedRequest)).get()
            try await body(channel, answers)
        }
    }

    private static let feedRequest = "GET /v1/events HTTP/1.1\r\nHost: x\r\nAccept: application/x-ndjson\r\nAuthorization: Bearer \(APIHarness.readKey)\r\n\r\n"

    /// Asks for the feed on a new connection and returns the answer's head (a 200's stream is not
    /// read: the connection closes once its head has come).
    private static func askFeed(port: Int) async throws -> String {
        let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton).connect(host: "127.0.0.1", port: port).get()
        let answers = ReadRecorder()
        try await channel.pipeline.addHandler(answers).get()
        try await channel.writeAndFlush(ByteBuffer(string: feedRequest)).get()
        let head = try await answers.waitFor("\r\n\r\n")
        let answer = head.hasPrefix("HTTP/1.1 200") ? head : try await answers.waitForAnswer(after: 0).text
        try? await channel.close()
        return answer
    }

    /// Reads a few kilobytes every 50 ms for 6 s (three request timeouts), then everything as it
    /// comes until the stream's last chunk or the end of the connection (15 s at most); returns
    /// how much the slow part read.
    private static func readSlowlyThenFast(_ channel: any Channel, _ answers: ReadRecorder) async throws -> Int {
        let slowUntil = ContinuousClock.now + .seconds(6)
        while ContinuousClock.now < slowUntil, channel.isActive {
            channel.read()
            try await Task.sleep(for: .milliseconds(50))
        }
        let slowlyRead = answers.text.utf8.count
        channel.setOption(.autoRead, value: true).whenSuccess { channel.read() }
        let deadline = ContinuousClock.now + .seconds(15)
        while ContinuousClock.now < deadline, channel.isActive, !answers.endsWith(Self.lastChunk) {
            try await Task.sleep(for: .milliseconds(100))
        }
        return slowlyRead
    }

    /// The end of a chunked answer.
    private static let lastChunk = "\r\n0\r\n\r\n"

    /// Expects the stream read to its last chunk, with all `events` events in it.
    private static func expectWholeFeed(_ answers: ReadRecorder, events: Int, open: Bool, sourceLocation: SourceLocation = #_sourceLocation) {
        let text = answers.text
        #expect(text.hasSuffix(lastChunk), "the feed did not end; read \(text.utf8.count) bytes, connection open: \(open)", sourceLocation: sourceLocation)
        #expect(text.components(separatedBy: "\"type\":\"padding\"").count - 1 == events, sourceLocation: sourceLocation)
    }

    /// Sends `bytes` one every 300 ms, and says whether the server closes the connection within 15 s.
    private static func closesWhileTrickling(_ bytes: ArraySlice<UInt8>, on channel: any Channel) async throws -> Bool {
        try await withThrowingTaskGroup(of: Void.self, returning: Bool.self) { group in
            group.addTask {
                for byte in bytes {
                    try await Task.sleep(for: .milliseconds(300))
                    try await channel.writeAndFlush(ByteBuffer(bytes: [byte])).get()
                }
            }
            // The writer's error once the server closes the connection is expected and discarded.
            defer { group.cancelAll() }
            return try await RawConnection.closes(channel, within: .seconds(15))
        }
    }
}
