/// The ledger's domain settings, built by the executable from the YAML configuration.
public struct LedgerConfiguration: Sendable {
    /// Who owns a chain when a second user claims it.
    public enum LinkPolicy: String, Sendable, CaseIterable {
        /// The latest claim wins; recorded as a transfer.
        case transfer
        /// The first owner keeps it; the later claim is recorded and refused.
        case keep
    }

    public var catalog: ProductCatalog
    public var linkPolicy: LinkPolicy
    /// Whether a transaction's `appAccountToken` claims the chain for the user with that (lowercase) id.
    public var linkAppAccountToken: Bool
    /// Whether sandbox chains grant entitlements (default yes, so App Review works).
    public var sandboxGrants: Bool
    /// V1 notification shared secrets by bundle id.
    public var sharedSecrets: [String: String]
    /// Whether verifyReceipt's default secret is one configured for it (`apple.verify_receipt.
    /// shared_secret_env`) rather than the first app's: then a refusal of it is the server's error.
    public var hasOwnReceiptSecret: Bool
    /// How many ingest transactions run at once; ingests arriving while all are busy wait and share
    /// the next one (group commit). More lets more database connections work at once.
    public var ingestBatchesInFlight: Int
    /// The most facts one ingest transaction takes.
    public var ingestBatchSize: Int
    /// How many times a write runs again to lock, with the rest, a transfer's previous owners it
    /// found only once its first statement had read the chain's owner; past that it locks them
    /// after the rest. Not in the YAML: owners rarely change between two runs; `serve` sets 0 on
    /// SQLite, whose one writer cannot deadlock, and tests set 0 to reach the late locks.
    public var previousOwnerRestarts: Int
    /// `previousOwnerRestarts` unless set otherwise.
    public static let defaultPreviousOwnerRestarts = 3

    /// Creates a configuration.
    public init(
        catalog: ProductCatalog = ProductCatalog(),
        linkPolicy: LinkPolicy = .transfer,
        linkAppAccountToken: Bool = true,
        sandboxGrants: Bool = true,
        sharedSecrets: [String: String] = [:],
        hasOwnReceiptSecret: Bool = false,
        ingestBatchesInFlight: Int = 2,
        ingestBatchSize: Int = 64,
        previousOwnerRestarts: Int = Self.defaultPreviousOwnerRestarts
    ) {
        self.catalog = catalog
        self.linkPolicy = linkPolicy
        self.linkAppAccountToken = linkAppAccountToken
        self.sandboxGrants = sandboxGrants
        self.sharedSecrets = sharedSecrets
        self.hasOwnReceiptSecret = hasOwnReceiptSecret
        self.ingestBatchesInFlight = ingestBatchesInFlight
        self.ingestBatchSize = ingestBatchSize
        self.previousOwnerRestarts = previousOwnerRestarts
    }
}
