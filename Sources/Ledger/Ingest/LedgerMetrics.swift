import Foundation
import Metrics

/// The ledger's own measurements, reported through swift-metrics (Prometheus in `serve`).
///
/// A `subledger_database_duration` timer covers one ledger operation's store calls and the decoding
/// and folding of what they return (not the HTTP work around it).
///
/// Each timer is made once, with the ledger, and reused, as swift-metrics intends: making one looks
/// it up in the metrics factory, which took about 3 µs of every entitlement read. A ledger made before
/// the metrics system is bootstrapped reports nowhere (`serve` bootstraps first).
struct LedgerMetrics: Sendable {
    /// Signature and chain verification of one V2 notification.
    let notificationVerification = Self.timer("subledger_verification_duration", kind: "notification_v2")
    /// Signature and chain verification of one client-submitted transaction.
    let transactionVerification = Self.timer("subledger_verification_duration", kind: "transaction")
    /// The wait on Apple's verifyReceipt for one receipt sent there, answered or failed, its redirect,
    /// retries and backoff included (a receipt refused before it is sent is not timed).
    let receiptVerification = Self.timer("subledger_verification_duration", kind: "receipt")
    /// One group-commit transaction.
    let append = Self.timer("subledger_database_duration", operation: "append")
    /// One entitlement read from the read models.
    let readEntitlements = Self.timer("subledger_database_duration", operation: "read_entitlements")
    /// One `as_of` query: the user's and their chains' streams read and folded up to the cutoff.
    let readAsOf = Self.timer("subledger_database_duration", operation: "read_as_of")
    /// One chain read from the read models.
    let readChain = Self.timer("subledger_database_duration", operation: "read_chain")
    /// One read of who owns a chain (the chain view's `user_id`).
    let readChainOwner = Self.timer("subledger_database_duration", operation: "read_chain_owner")
    /// One page of a user's events.
    let readUserEvents = Self.timer("subledger_database_duration", operation: "read_user_events")
    /// One page of the global event log (a JSON page, or one of the NDJSON feed's pages).
    let readEvents = Self.timer("subledger_database_duration", operation: "read_events")
    /// One read of a user's manual grants.
    let readGrants = Self.timer("subledger_database_duration", operation: "read_grants")
    /// One manual grant or revocation, appended and projected in its transaction.
    let appendGrant = Self.timer("subledger_database_duration", operation: "append_grant")

    /// Runs `body` and records how long it took in `timer`, whether it returned or threw.
    static func timed<T>(_ timer: Timer, _ body: () async throws -> T) async throws -> T {
        let start = ContinuousClock.now
        defer {
            let elapsed = ContinuousClock.now - start
            timer.recordNanoseconds(elapsed.components.seconds * 1_000_000_000 + elapsed.components.attoseconds / 1_000_000_000)
        }
        return try await body()
    }

    private static func timer(_ label: String, kind: String) -> Timer {
        Timer(label: label, dimensions: [("kind", kind)])
    }

    private static func timer(_ label: String, operation: String) -> Timer {
        Timer(label: label, dimensions: [("operation", operation)])
    }
}
