import AppStoreTesting
import EventStoreTesting
import Foundation
import Ledger
@testable import LedgerHTTP
import NIOCore
import ServiceLifecycle
import Synchronization
import Testing

/// A flood of connections cannot take every file descriptor: past `http.max_connections` a new one
/// is answered 503 `too_many_connections` unread and closed, and a place freed by a close is taken
/// by the next connection.
struct ConnectionLimitTests {
    private static let health = "GET /health HTTP/1.1\r\nHost: x\r\n\r\n"

    /// Two places and room for one refused connection to linger, for 5 s.
    @Test func aConnectionPastTheCeilingIsAnswered503UnreadAndClosedAndAFreedPlaceIsTakenAgain() async throws {
        let body = try APIHarness.signedRenewalBody()
        let notification = "POST /v1/apple/notifications/v2 HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)"
        try await Self.withServer(maximumConnections: 2, refusalHeadroom: 1, refusalLinger: .seconds(5)) { port, eventCount in
            // Two connections the server has answered, so both hold a place.
            let (first, firstAnswers) = try await RawConnection.connect(port: port)
            try await first.writeAndFlush(ByteBuffer(string: Self.health)).get()
            #expect(try await firstAnswers.waitForAnswer(after: 0).text.hasPrefix("HTTP/1.1 200"))
            let (second, secondAnswers) = try await RawConnection.connect(port: port)
            try await second.writeAndFlush(ByteBuffer(string: Self.health)).get()
            #expect(try await secondAnswers.waitForAnswer(after: 0).text.hasPrefix("HTTP/1.1 200"))

            // The third gets the problem; the signed notification it sends is never read. It keeps
            // its side open after the server's answer, as a client may.
            let (third, thirdAnswers) = try await RawConnection.connect(port: port, keepingHalfClosed: true)
            try? await third.writeAndFlush(ByteBuffer(string: notification)).get()
            try Self.expectRefusal(try await thirdAnswers.waitForAnswer(after: 0).text)

            // While it lingers the server accepts nothing more: a fourth connection waits in the
            // listen backlog, answered by no one.
            let (fourth, fourthAnswers) = try await RawConnection.connect(port: port)
            try await Task.sleep(for: .milliseconds(1_500))
            #expect(fourthAnswers.text.isEmpty, "a connection was accepted past the ceiling: \(fourthAnswers.text)")

            // After the linger the server closes the third whatever its client does (a write then
            // meets the closed connection), and accepts the fourth, which is refused in its turn:
            // the refused third never held one of the two places.
            try Self.expectRefusal(try await fourthAnswers.waitForAnswer(after: 0).text)
            try? await third.writeAndFlush(ByteBuffer(string: "x")).get()
            try? await Task.sleep(for: .milliseconds(100))
            try? await third.writeAndFlush(ByteBuffer(string: "x")).get()
            #expect(try await RawConnection.closes(third, within: .seconds(5)), "the refused connection stayed open past its linger")
            #expect(try await RawConnection.closes(fourth, within: .seconds(10)))
            #expect(try await eventCount() == 0)

            // The connections that hold a place still work. (The reads so far are counted before the
            // request goes: counted after, an answer read in between would be skipped and waited for.)
            let readsBefore = secondAnswers.count
            try await second.writeAndFlush(ByteBuffer(string: Self.health)).get()
            #expect(try await secondAnswers.waitForAnswer(after: readsBefore).text.hasPrefix("HTTP/1.1 200"))

            // A close frees a place; the server learns of it a moment later, so a new connection may
            // still be refused until then. The notification the third sent is recorded once read.
            try await second.close()
            let deadline = ContinuousClock.now + .seconds(30)
            var served: String?
            while served == nil, ContinuousClock.now < deadline {
                let (next, answers) = try await RawConnection.connect(port: port)
                try? await next.writeAndFlush(ByteBuffer(string: notification)).get()
                let answer = try await answers.waitForAnswer(after: 0).text
                if answer.hasPrefix("HTTP/1.1 200") { served = answer }
                try? await next.close()
                if served == nil { try await Task.sleep(for: .milliseconds(50)) }
            }
            #expect(served?.contains(#""result":"recorded""#) == true, "no connection was served after one holding a place closed")
            #expect(try await eventCount() == 1)
            try? await first.close()
        }
    }

    /// A live server on a fresh SQLite store, run here rather than by HummingbirdTesting, whose live
    /// framework rebuilds the application's configuration without its accept ceiling (and holds a
    /// connection of its own).
    private static func withServer(
        maximumConnections: Int, refusalHeadroom: Int, refusalLinger: Duration,
        _ body: @Sendable @escaping (Int, @Sendable () async throws -> Int) async throws -> Void
    ) async throws {
        let pki = try APIHarness.pki.get()
        try await withFreshStore(.sqlite) { fixture in
            let (ports, announce) = AsyncStream<Int>.makeStream()
            let app = try APIHarness.application(
                store: fixture.store, pki: pki, clock: ManualClock(Day.date(0)), verifyReceiptURL: "http://127.0.0.1:9",
                adjusting: { settings in
                    settings.maximumConnections = maximumConnections
                    settings.refusalHeadroom = refusalHeadroom
                    settings.refusalLinger = refusalLinger
                },
                onServerRunning: { port in announce.yield(port) }
            )
            let services = ServiceGroup(services: [app], logger: TestDatabases.logger)
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { try await services.run() }
                var announced = ports.makeAsyncIterator()
                let port = try #require(await announced.next())
                do {
                    try await body(port, { try await fixture.store.eventCount() })
                } catch {
                    await services.triggerGracefulShutdown()
                    throw error
                }
                await services.triggerGracefulShutdown()
                try await group.waitForAll()
            }
        }
    }

    private static func expectRefusal(_ answer: String) throws {
        let parts = answer.components(separatedBy: "\r\n\r\n")
        let head = parts[0].lowercased()
        #expect(head.hasPrefix("http/1.1 503"), "\(parts[0])")
        #expect(head.contains("content-type: application/problem+json"))
        #expect(head.contains("connection: close"))
        #expect(head.contains("retry-after: 1"))
        #expect(head.contains("x-request-id: "))
        let object = try #require(try JSONSerialization.jsonObject(with: Data(parts[1].utf8)) as? [String: Any])
        #expect(object["code"] as? String == "too_many_connections")
        #expect(object["status"] as? Int == 503)
        #expect((object["detail"] as? String)?.contains("maximum of 2 connections") == true, "\(object)")
    }

    /// Places are taken and given back atomically: however many event loops accept and close at
    /// once, no more than the ceiling is ever handed out, and at the ceiling acquires are refused.
    /// Forty-eight tasks, let go together from a barrier, each take a place, hold it across
    /// suspensions (so the places held pile up to the ceiling of 16) and give it back, 2,000 times;
    /// the places held, counted by the tasks themselves, never pass the ceiling. Then, behind a second
    /// barrier, all try to take a place at once, and exactly 16 get one.
    @Test func concurrentAcquiresNeverHandOutMoreThanTheCeiling() async {
        /// What the tasks count between them: the places they hold now, the most held at once, and
        /// the acquires refused.
        final class Counts: Sendable {
            let held = Atomic<Int>(0)
            let most = Atomic<Int>(0)
            let refused = Atomic<Int>(0)
        }
        let ceiling = 16
        let tasks = 48
        let rounds = 2_000
        let limit = ConnectionLimit(maximum: ceiling)
        let counts = Counts()
        // Barriers: each task reports in, and waits for the task that ends once all have.
        let (arrivals, arrive) = AsyncStream<Void>.makeStream()
        let (departures, depart) = AsyncStream<Void>.makeStream()
        let allStarted = Task { for await _ in arrivals.prefix(tasks) {} }
        let allChurned = Task { for await _ in departures.prefix(tasks) {} }
        let granted = await withTaskGroup(of: Bool.self, returning: Int.self) { group in
            for _ in 0..<tasks {
                group.addTask {
                    arrive.yield()
                    await allStarted.value
                    for round in 0..<rounds {
                        guard limit.acquire() else {
                            counts.refused.add(1, ordering: .relaxed)
                            await Task.yield()
                            continue
                        }
                        // Counted after the acquire and uncounted before the release, so `held` is
                        // never more than the places truly handed out.
                        let held = counts.held.add(1, ordering: .sequentiallyConsistent).newValue
                        counts.most.max(held, ordering: .sequentiallyConsistent)
                        for _ in 0...(round % 3) { await Task.yield() }
                        counts.held.subtract(1, ordering: .sequentiallyConsistent)
                        limit.release()
                    }
                    depart.yield()
                    await allChurned.value
                    return limit.acquire()
                }
            }
            var taken = 0
            for await got in group where got { taken += 1 }
            return taken
        }
        arrive.finish()
        depart.finish()
        let most = counts.most.load(ordering: .sequentiallyConsistent)
        #expect(most <= ceiling, "\(most) places were held at once under a ceiling of \(ceiling)")
        // Forty-eight tasks holding across suspensions reach the ceiling; the refusals show they met it.
        #expect(most == ceiling)
        #expect(counts.refused.load(ordering: .sequentiallyConsistent) > 0)
        #expect(granted == ceiling)
        #expect(limit.current == ceiling)
        #expect(!limit.acquire())
        limit.release()
        #expect(limit.current == ceiling - 1)
        #expect(limit.acquire())
        #expect(!limit.acquire())
        for _ in 0..<ceiling { limit.release() }
        #expect(limit.current == 0)
        #expect(ConnectionLimit(maximum: 0).maximum == 1)
    }

    /// A flood of refusals logs its first, then one a minute (the metric, which counts them all, is
    /// in `/metrics` from the start: ServeProcessTests).
    @Test func refusalsAreLoggedOnceAMinute() {
        let limit = ConnectionLimit(maximum: 1)
        let second: UInt64 = 1_000_000_000
        #expect(limit.logsRefusal(at: 5 * second))
        #expect(!limit.logsRefusal(at: 5 * second + 1))
        #expect(!limit.logsRefusal(at: 64 * second))
        #expect(limit.logsRefusal(at: 65 * second))
        #expect(!limit.logsRefusal(at: 100 * second))
    }
}
