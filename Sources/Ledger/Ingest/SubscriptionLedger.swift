import AppStore
import Crypto
import EventStore
import Foundation
import Logging

/// The ledger's use cases: ingest what Apple sends, link users, grant, and answer entitlement queries.
///
/// Each ingestion appends one event (deduplicated) and updates the read models in the same transaction,
/// so a success means the next read sees it. Reads evaluate status at the requested moment from the
/// stored fold state, so expiry needs no event.
public final class SubscriptionLedger: Sendable {
    public let store: any EventStore
    public let verifier: SignedDataVerifier
    public let receiptValidator: (any ReceiptValidating)?
    public let configuration: LedgerConfiguration
    let clock: any LedgerClock
    let logger: Logger
    let projector = LedgerProjector()
    let evaluator: EntitlementEvaluator
    /// Concurrent ingests share transactions through it (group commit).
    let factBatcher: Batcher<PendingFact, IngestResult>
    /// Timers for verification and database work, made once.
    let metrics = LedgerMetrics()
    /// Says when a fact names a product the catalog lacks.
    let unconfiguredProducts: UnconfiguredProducts

    /// Creates the ledger over a store, a verifier and (optionally) a verifyReceipt client.
    public init(
        store: any EventStore,
        verifier: SignedDataVerifier,
        receiptValidator: (any ReceiptValidating)? = nil,
        configuration: LedgerConfiguration,
        clock: any LedgerClock = SystemClock(),
        logger: Logger = Logger(label: "subledger.ledger")
    ) {
        self.store = store
        self.verifier = verifier
        self.receiptValidator = receiptValidator
        self.configuration = configuration
        self.clock = clock
        self.logger = logger
        self.evaluator = EntitlementEvaluator(catalog: configuration.catalog, sandboxGrants: configuration.sandboxGrants)
        self.unconfiguredProducts = UnconfiguredProducts(catalog: configuration.catalog)
        // A leader runs one more batch before handing over: interleaved benchmark runs measured more
        // notifications per second than handing every batch to a waiter (docs/architecture.md).
        self.factBatcher = Batcher(
            maxBatchesInFlight: configuration.ingestBatchesInFlight, maxBatchSize: configuration.ingestBatchSize,
            executor: store.batchExecutor, followOnBatches: 1
        )
    }

    /// The environment a legacy input (a V1 notification, a receipt) states, as `Normalizer` records
    /// it; refuses the input when its app is not configured or does not accept that environment, as
    /// the verifier refuses signed inputs. So what is checked is what the fact will say.
    func acceptedEnvironment(_ stated: LegacyEnvironment?, bundleId: String?, of kind: String) throws -> String {
        guard let bundleId, let app = verifier.app(bundleId: bundleId) else {
            throw LedgerError(.unknownApp, "\(kind) bundle id \(bundleId ?? "(missing)") is not a configured app")
        }
        guard let environment = Normalizer.environment(stated) else {
            throw LedgerError(.environmentNotAccepted, "\(kind) states no environment, so it cannot be checked against \(bundleId)'s")
        }
        guard app.accepts(AppStoreEnvironment(rawValue: environment)) else {
            throw LedgerError(.environmentNotAccepted, "\(kind) environment \(environment) is not accepted for \(bundleId)")
        }
        return environment
    }

    /// A submission whose claim `keep` refused answers `link_conflict`; the fact and the refused link
    /// are recorded all the same.
    static func refuseIfKept(_ result: IngestResult) throws {
        guard let chain = result.refusedChains.first else { return }
        throw LedgerError(.linkConflict, "subscription \(chain) belongs to another user and the linking policy is keep")
    }

    /// The time a just-appended event was stored with, as a replay will read it (`fallback` only if
    /// the store did not say).
    static func recordedAt(_ event: AppendedEvent, fallback: Date) -> Int64 {
        Timestamp.milliseconds(event.recordedAt ?? fallback)
    }

    /// Whether `id` can be a user id: 1 to 256 Unicode scalars (code points, as JSON Schema counts
    /// `maxLength`; so at most 1 KiB of UTF-8) in Normalization Form C, none of them control
    /// characters (the rule the HTTP API holds a submitted `user_id` and a path's id to).
    ///
    /// NFC because Swift compares strings by canonical equivalence and the databases by bytes:
    /// `café` precomposed and decomposed would be one key in the ledger's dictionaries and caches
    /// and two streams in the store, and a stream could take the other's head.
    public static func isUserId(_ id: String) -> Bool {
        let utf8 = id.utf8
        guard !utf8.isEmpty else { return false }
        // Most ids are ASCII: there a byte is a character, and the control characters are 0-31 and 127,
        // so the Unicode tables (a measurable part of an entitlement read) are not needed.
        if utf8.allSatisfy({ $0 < 0x80 }) {
            return utf8.count <= 256 && !utf8.contains { $0 < 0x20 || $0 == 0x7F }
        }
        return id.unicodeScalars.count <= 256 && !id.unicodeScalars.contains { $0.properties.generalCategory == .control }
            && id.utf8.elementsEqual(id.precomposedStringWithCanonicalMapping.utf8)
    }

    static func sha256(_ data: Data) -> String {
        Hex.string(SHA256.hash(data: data))
    }

    /// Compares secrets without an early exit, so response time does not reveal how much matched.
    static func constantTimeEquals(_ lhs: String, _ rhs: String) -> Bool {
        let left = Array(lhs.utf8)
        let right = Array(rhs.utf8)
        var difference = UInt8(left.count == right.count ? 0 : 1)
        for index in 0..<max(left.count, right.count) {
            let a = index < left.count ? left[index] : 0
            let b = index < right.count ? right[index] : 0
            difference |= a ^ b
        }
        return difference == 0
    }
}
