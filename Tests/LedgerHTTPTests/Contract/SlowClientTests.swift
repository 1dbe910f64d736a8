import AppStoreTesting
import EventStoreTesting
import HummingbirdTesting
import Ledger
import NIOCore
import NIOPosix
import Testing

/// A client that stops sending in the middle of a request loses its connection after the idle
/// timeout, so slow clients cannot hold connections open; nothing of its half request is recorded.
struct SlowClientTests {
    @Test func aClientThatStopsMidRequestIsDisconnectedAfterTheIdleTimeout() async throws {
        let pki = try APIHarness.pki.get()
        try await withFreshStore(.sqlite) { fixture in
            let app = try APIHarness.application(
                store: fixture.store, pki: pki, clock: ManualClock(Day.date(0)), verifyReceiptURL: "http://127.0.0.1:9",
                idleTimeout: .seconds(1)
            )
            try await app.test(.live) { client in
                let port = try #require(client.port)
                let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                    .connect(host: "127.0.0.1", port: port).get()
                // Headers and the start of a 100-byte body, then silence.
                let partial = "POST /v1/apple/notifications/v2 HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{\"signed"
                try await channel.writeAndFlush(ByteBuffer(string: partial)).get()
                let start = ContinuousClock.now
                let closed = try await withThrowingTaskGroup(of: Bool.self) { group in
                    group.addTask { try await channel.closeFuture.get(); return true }
                    group.addTask { try await Task.sleep(for: .seconds(15)); return false }
                    defer { group.cancelAll() }
                    return try await group.next() ?? false
                }
                if !closed { try? await channel.close() }
                #expect(closed, "the server kept a silent connection open for 15 s")
                #expect(ContinuousClock.now - start >= .milliseconds(900))
                #expect(try await fixture.store.eventCount() == 0)
            }
        }
    }
}
