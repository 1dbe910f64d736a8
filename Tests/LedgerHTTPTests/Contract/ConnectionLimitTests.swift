import Foundation
@testable import LedgerHTTP
import NIOCore
import NIOPosix
import Testing

/// A flood of connections cannot take every file descriptor: past `http.max_connections` a new one
/// is answered 503 `too_many_connections` unread and closed, and a place freed by a close is taken
/// by the next connection.
struct ConnectionLimitTests {
    private static let health = "GET /health HTTP/1.1\r\nHost: x\r\n\r\n"

    @Test func aConnectionPastTheCeilingIsAnswered503UnreadAndClosedAndAFreedPlaceIsTakenAgain() async throws {
        // Three places: HummingbirdTesting's live client holds one from the start, the test two.
        try await RawConnection.withServer(idleTimeout: .seconds(30), requestTimeout: .seconds(60), maximumConnections: 3) { first, _, eventCount in
            let port = try #require(first.remoteAddress?.port)
            // Two connections the server has answered, so both hold a place.
            let firstAnswers = ReadRecorder()
            try await first.pipeline.addHandler(firstAnswers).get()
            try await first.writeAndFlush(ByteBuffer(string: Self.health)).get()
            #expect(try await firstAnswers.waitForAnswer(after: 0).text.hasPrefix("HTTP/1.1 200"))
            let (second, secondAnswers) = try await Self.connect(port: port)
            try await second.writeAndFlush(ByteBuffer(string: Self.health)).get()
            #expect(try await secondAnswers.waitForAnswer(after: 0).text.hasPrefix("HTTP/1.1 200"))

            // The third gets the problem whatever it sends; its notification is never read.
            let (third, thirdAnswers) = try await Self.connect(port: port)
            let body = #"{"signedPayload":"not even a JWS"}"#
            try? await third.writeAndFlush(ByteBuffer(string:
                "POST /v1/apple/notifications/v2 HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)"
            )).get()
            let refused = try await thirdAnswers.waitForAnswer(after: 0).text
            let parts = refused.components(separatedBy: "\r\n\r\n")
            let head = parts[0].lowercased()
            #expect(head.hasPrefix("http/1.1 503"), "\(parts[0])")
            #expect(head.contains("content-type: application/problem+json"))
            #expect(head.contains("connection: close"))
            #expect(head.contains("retry-after: 1"))
            #expect(head.contains("x-request-id: "))
            let object = try #require(try JSONSerialization.jsonObject(with: Data(parts[1].utf8)) as? [String: Any])
            #expect(object["code"] as? String == "too_many_connections")
            #expect(object["status"] as? Int == 503)
            #expect((object["detail"] as? String)?.contains("maximum of 3 connections") == true, "\(object)")
            #expect(try await RawConnection.closes(third, within: .seconds(5)), "the refused connection stayed open")
            #expect(try await eventCount() == 0)

            // The connections that hold a place still work.
            try await second.writeAndFlush(ByteBuffer(string: Self.health)).get()
            #expect(try await secondAnswers.waitForAnswer(after: secondAnswers.count).text.hasPrefix("HTTP/1.1 200"))

            // A close frees a place; the server learns of it a moment later, so a new connection may
            // still be refused until then.
            try await second.close()
            let deadline = ContinuousClock.now + .seconds(10)
            var served = false
            while !served, ContinuousClock.now < deadline {
                let (next, answers) = try await Self.connect(port: port)
                try? await next.writeAndFlush(ByteBuffer(string: Self.health)).get()
                served = try await answers.waitForAnswer(after: 0).text.hasPrefix("HTTP/1.1 200")
                try? await next.close()
                if !served { try await Task.sleep(for: .milliseconds(50)) }
            }
            #expect(served, "no connection was served after one holding a place closed")
        }
    }

    /// Places are taken and given back atomically: however many event loops accept at once, no more
    /// than the ceiling is handed out.
    @Test func concurrentAcquiresNeverHandOutMoreThanTheCeiling() async {
        let limit = ConnectionLimit(maximum: 100)
        let granted = await withTaskGroup(of: Int.self) { group in
            for _ in 0..<8 {
                group.addTask { (0..<50).filter { _ in limit.acquire() }.count }
            }
            return await group.reduce(0, +)
        }
        #expect(granted == 100)
        #expect(limit.current == 100)
        #expect(!limit.acquire())
        limit.release()
        #expect(limit.current == 99)
        #expect(limit.acquire())
        #expect(ConnectionLimit(maximum: 0).maximum == 1)
    }

    /// A flood of refusals logs its first, then one a minute; the metric counts them all.
    @Test func refusalsAreLoggedOnceAMinute() {
        let limit = ConnectionLimit(maximum: 1)
        let second: UInt64 = 1_000_000_000
        #expect(limit.logsRefusal(at: 5 * second))
        #expect(!limit.logsRefusal(at: 5 * second + 1))
        #expect(!limit.logsRefusal(at: 64 * second))
        #expect(limit.logsRefusal(at: 65 * second))
        #expect(!limit.logsRefusal(at: 100 * second))
    }

    /// A connection whose reads are recorded from the first byte (the refusal comes as it opens).
    private static func connect(port: Int) async throws -> (any Channel, ReadRecorder) {
        let answers = ReadRecorder()
        let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture { try channel.pipeline.syncOperations.addHandler(answers) }
            }
            .connect(host: "127.0.0.1", port: port).get()
        return (channel, answers)
    }
}
