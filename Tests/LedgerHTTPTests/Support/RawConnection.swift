import AppStoreTesting
import EventStoreTesting
import HummingbirdTesting
import Ledger
import NIOCore
import NIOPosix
import Testing

/// A live server and a raw TCP connection to it, for tests of what an HTTP client library would
/// never send (half requests, trickled bytes, heads that are not HTTP).
enum RawConnection {
    /// A live server on a fresh SQLite store and a raw connection to it, with the time just before it
    /// connected.
    static func withServer(
        idleTimeout: Duration, requestTimeout: Duration,
        _ body: @Sendable @escaping (any Channel, ContinuousClock.Instant, @Sendable () async throws -> Int) async throws -> Void
    ) async throws {
        let pki = try APIHarness.pki.get()
        try await withFreshStore(.sqlite) { fixture in
            let app = try APIHarness.application(
                store: fixture.store, pki: pki, clock: ManualClock(Day.date(0)), verifyReceiptURL: "http://127.0.0.1:9",
                idleTimeout: idleTimeout, requestTimeout: requestTimeout
            )
            try await app.test(.live) { client in
                let port = try #require(client.port)
                let connecting = ContinuousClock.now
                let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                    .connect(host: "127.0.0.1", port: port).get()
                try await body(channel, connecting, { try await fixture.store.eventCount() })
                try? await channel.close()
            }
        }
    }

    /// Whether the server closes `channel` within `limit`; if not, the test closes it then.
    static func closes(_ channel: any Channel, within limit: Duration) async throws -> Bool {
        try await withThrowingTaskGroup(of: Bool.self) { group in
            group.addTask { try await channel.closeFuture.get(); return true }
            group.addTask { try await Task.sleep(for: limit); return false }
            // Waiting on `closeFuture` is not cancellable: closing ends it.
            defer { group.cancelAll() }
            let closed = try await group.next() ?? false
            if !closed { try? await channel.close() }
            return closed
        }
    }
}
