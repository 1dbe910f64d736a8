import AppStore
import AppStoreTesting
import ArgumentParser
import AsyncHTTPClient
import EventStore
import Foundation
import Hummingbird
import Ledger
import LedgerHTTP
import Logging
import Metrics
import NIOCore
import Prometheus

/// `subledger-bench http`: the real HTTP server on loopback over PostgreSQL, driven by concurrent
/// clients: (a) distinct signed V2 notifications ingested per second, (b) entitlement reads per second
/// with p50/p99 latency.
struct HTTPBenchmark: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "http",
        abstract: "Measure V2 ingest/s (32 connections) and entitlement reads/s with p50/p99 (64 connections) over loopback."
    )

    @OptionGroup var database: BenchDatabaseOptions

    @Option(help: "Distinct V2 notifications to ingest (wrk posts each at most once, so more than it can post in its time).")
    var notifications = 60_000

    @Option(help: "Concurrent connections for ingest.")
    var ingestConnections = 32

    @Option(help: "Concurrent connections for reads.")
    var readConnections = 64

    @Option(help: "Seconds to measure reads.")
    var readSeconds = 10

    @Option(help: "After measuring, keep serving this many seconds so an outside load generator (wrk) can read too.")
    var holdSeconds = 0

    @Option(help: "Write the minted notification bodies to this file, one per line, and leave ingest and reads to an outside load generator (wrk) while serving for --hold-seconds.")
    var bodiesFile: String?

    @Option(help: "Batched entitlement reads in flight at once (the read_batches URL option).")
    var readBatches = 1

    @Option(help: "Ingest transactions in flight at once; concurrent ingests share them (group commit).")
    var ingestBatches = LedgerConfiguration().ingestBatchesInFlight

    @Flag(inversion: .prefixedNo, help: "Report Prometheus metrics, as `subledger serve` does.")
    var metrics = true

    func run() async throws {
        // The server measured is the one `serve` runs, metrics included.
        let registry = metrics ? PrometheusCollectorRegistry() : nil
        if let registry { MetricsSystem.bootstrap(PrometheusMetricsFactory(registry: registry)) }
        let logger = BenchSchema.quietLogger
        var (settings, schema) = try await BenchSchema.fresh(url: database.url, prefix: "http", poolSize: 40, logger: logger)
        settings.readBatchesInFlight = readBatches
        let store = PostgresEventStore(settings: settings, logger: logger)
        let pki = try TestPKI(caCurve: .p384)
        let bundleId = "com.example.app"
        let ledger = SubscriptionLedger(
            store: store,
            verifier: try pki.makeVerifier(bundleId: bundleId, appAppleId: 1, environments: [.sandbox]),
            configuration: LedgerConfiguration(
                catalog: ProductCatalog(products: ["pro.monthly": .init(entitlements: ["pro"])]),
                ingestBatchesInFlight: ingestBatches
            ),
            logger: logger
        )
        let secret = "sl_bench"
        let (ports, portContinuation) = AsyncStream<Int>.makeStream()
        let app = LedgerApplication.make(
            settings: .init(host: "127.0.0.1", port: 0), store: store, ledger: ledger,
            keys: [APIKey(name: "bench", scopes: [.read, .ingest], sha256: APIKey.hash(secret: secret))],
            metrics: registry,
            logger: logger,
            onServerRunning: { port in portContinuation.yield(port) }
        )
        print("minting \(notifications) distinct signed V2 notifications (P-384 test CA, like Apple's)...")
        let bodies = try (0..<notifications).map { index -> String in
            let original = String(3_000_000_000 + index)
            let purchase = Int64(1_767_225_600_000) + Int64(index)
            let jws = try pki.signNotification(
                type: .didRenew, bundleId: bundleId, environment: .sandbox,
                transaction: JWSTransactionDecodedPayload(
                    originalTransactionId: original, transactionId: original, productId: "pro.monthly",
                    purchaseDate: AppStoreDate(millisecondsSince1970: purchase),
                    expiresDate: AppStoreDate(millisecondsSince1970: purchase + 2_592_000_000),
                    type: .autoRenewableSubscription, appAccountToken: "user-\(index)"
                ),
                signedDate: AppStoreDate(millisecondsSince1970: purchase)
            )
            return #"{"signedPayload":"\#(jws)"}"#
        }
        var clientConfiguration = HTTPClient.Configuration()
        clientConfiguration.connectionPool.concurrentHTTP1ConnectionsPerHostSoftLimit = max(ingestConnections, readConnections)
        let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: clientConfiguration)
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await store.run() }
            try await store.migrate()
            group.addTask { try await app.runService() }
            var iterator = ports.makeAsyncIterator()
            guard let port = await iterator.next() else { return }
            let base = "http://127.0.0.1:\(port)"

            if let bodiesFile {
                // Outside load: like pgbench, the client runs in its own process and the server has
                // this process to itself.
                try Data(bodies.joined(separator: "\n").utf8).write(to: URL(fileURLWithPath: bodiesFile))
                try await client.shutdown()
                print("serving on port \(port) for \(holdSeconds)s: \(bodies.count) bodies in \(bodiesFile), users user-0 to user-\(bodies.count - 1), bearer \(secret), schema \(schema)")
                fflush(nil)
                try await Task.sleep(for: .seconds(holdSeconds))
                group.cancelAll()
                return
            }

            // (a) ingest
            let next = Counter()
            let start = ContinuousClock.now
            let failures = try await withThrowingTaskGroup(of: Int.self) { workers in
                for _ in 0..<ingestConnections {
                    workers.addTask {
                        var failures = 0
                        while let index = next.take(below: bodies.count) {
                            var request = HTTPClientRequest(url: base + "/v1/apple/notifications/v2")
                            request.method = .POST
                            request.headers.add(name: "Content-Type", value: "application/json")
                            request.body = .bytes(ByteBuffer(string: bodies[index]))
                            let response = try await client.execute(request, timeout: .seconds(60))
                            _ = try await response.body.collect(upTo: 1 << 20)
                            if response.status != .ok { failures += 1 }
                        }
                        return failures
                    }
                }
                var total = 0
                for try await count in workers { total += count }
                return total
            }
            let ingestSeconds = Self.seconds(ContinuousClock.now - start)
            print(String(format: "ingest: %d V2 notifications over %d connections in %.2fs = %.0f/s (%d failed)",
                         bodies.count, ingestConnections, ingestSeconds, Double(bodies.count) / ingestSeconds, failures))

            // (b) reads
            let deadline = ContinuousClock.now + .seconds(readSeconds)
            let readStart = ContinuousClock.now
            let latencies = try await withThrowingTaskGroup(of: [Double].self) { workers in
                for worker in 0..<readConnections {
                    workers.addTask {
                        var latencies: [Double] = []
                        var index = worker
                        while ContinuousClock.now < deadline {
                            var request = HTTPClientRequest(url: base + "/v1/users/user-\(index % bodies.count)/entitlements")
                            request.headers.add(name: "Authorization", value: "Bearer \(secret)")
                            let begin = ContinuousClock.now
                            let response = try await client.execute(request, timeout: .seconds(60))
                            _ = try await response.body.collect(upTo: 1 << 20)
                            latencies.append(Self.seconds(ContinuousClock.now - begin) * 1000)
                            index += readConnections
                        }
                        return latencies
                    }
                }
                var all: [Double] = []
                for try await part in workers { all += part }
                return all.sorted()
            }
            let readSecondsElapsed = Self.seconds(ContinuousClock.now - readStart)
            func percentile(_ p: Double) -> Double { latencies.isEmpty ? 0 : latencies[min(latencies.count - 1, Int(Double(latencies.count) * p))] }
            print(String(format: "reads: %d entitlement reads over %d connections in %.2fs = %.0f/s, p50 %.2f ms, p99 %.2f ms",
                         latencies.count, readConnections, readSecondsElapsed, Double(latencies.count) / readSecondsElapsed,
                         percentile(0.5), percentile(0.99)))
            try await client.shutdown()
            if holdSeconds > 0 {
                print("serving on port \(port) for \(holdSeconds)s: users user-0 to user-\(bodies.count - 1), bearer \(secret)")
                fflush(nil)
                try await Task.sleep(for: .seconds(holdSeconds))
            }
            group.cancelAll()
        }
    }

    static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }
}

import Synchronization
