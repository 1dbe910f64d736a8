import AppStoreTesting
import EventStore
import EventStoreTesting
import HummingbirdTesting
import Ledger
import LedgerHTTP
import NIOCore
import NIOPosix
import Testing

/// A live server and a raw TCP connection to it, for tests of what an HTTP client library would
/// never send (half requests, trickled bytes, heads that are not HTTP).
enum RawConnection {
    /// A live server on a fresh SQLite store (given `seed` first) and a raw connection to it, with the
    /// time just before it connected. A connection that does not read takes nothing from its socket
    /// until the test calls `read()`, and asks for a small receive buffer.
    static func withServer(
        idleTimeout: Duration, requestTimeout: Duration, reading: Bool = true,
        seed: @Sendable (any EventStore) async throws -> Void = { _ in },
        adjusting adjust: @Sendable (inout LedgerApplication.Settings) -> Void = { _ in },
        _ body: @Sendable @escaping (any Channel, ContinuousClock.Instant, @Sendable () async throws -> Int) async throws -> Void
    ) async throws {
        let pki = try APIHarness.pki.get()
        try await withFreshStore(.sqlite) { fixture in
            try await seed(fixture.store)
            let app = try APIHarness.application(
                store: fixture.store, pki: pki, clock: ManualClock(Day.date(0)), verifyReceiptURL: "http://127.0.0.1:9",
                idleTimeout: idleTimeout, requestTimeout: requestTimeout, adjusting: adjust
            )
            try await app.test(.live) { client in
                let port = try #require(client.port)
                let connecting = ContinuousClock.now
                var bootstrap = ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                if !reading {
                    bootstrap = bootstrap.channelOption(.autoRead, value: false).channelOption(.socketOption(.so_rcvbuf), value: 4096)
                }
                let channel = try await bootstrap.connect(host: "127.0.0.1", port: port).get()
                try await body(channel, connecting, { try await fixture.store.eventCount() })
                try? await channel.close()
            }
        }
    }

    /// A connection to `port` whose reads are recorded from the first byte (a refusal comes as it
    /// opens). Kept half-closed, it stays open when the server closes its output, as NIO's default
    /// does not.
    static func connect(port: Int, keepingHalfClosed: Bool = false) async throws -> (any Channel, ReadRecorder) {
        let answers = ReadRecorder()
        let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .channelOption(.allowRemoteHalfClosure, value: keepingHalfClosed)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture { try channel.pipeline.syncOperations.addHandler(answers) }
            }
            .connect(host: "127.0.0.1", port: port).get()
        return (channel, answers)
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
