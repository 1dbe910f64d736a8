import Foundation
import Metrics

/// The ledger's own measurements, reported through swift-metrics (Prometheus in `serve`).
enum LedgerMetrics {
    /// Times signature and chain verification of one input.
    static func verification<T>(_ kind: String, _ body: () async throws -> T) async throws -> T {
        try await timed("subledger_verification_duration", ["kind": kind], body)
    }

    /// Times one database operation of an ingestion or read.
    static func database<T>(_ operation: String, _ body: () async throws -> T) async throws -> T {
        try await timed("subledger_database_duration", ["operation": operation], body)
    }

    private static func timed<T>(_ label: String, _ dimensions: [String: String], _ body: () async throws -> T) async throws -> T {
        let start = ContinuousClock.now
        defer {
            let elapsed = ContinuousClock.now - start
            Timer(label: label, dimensions: dimensions.sorted { $0.key < $1.key }.map { ($0.key, $0.value) })
                .recordNanoseconds(elapsed.components.seconds * 1_000_000_000 + elapsed.components.attoseconds / 1_000_000_000)
        }
        return try await body()
    }
}
