import EventStore
import Foundation
import Ledger
import LedgerHTTP
import Logging

/// The service's settings: defaults, then the YAML file, then `SUBLEDGER_*` environment overrides.
struct SubledgerConfiguration: Sendable, Equatable {
    var httpHost = "127.0.0.1"
    var httpPort = 8080
    /// Seconds a connection may stay silent before it is closed (slow or stalled clients).
    var httpIdleTimeoutSeconds = 30
    /// Seconds a connection has to deliver its next whole request (clients trickling bytes).
    var httpRequestTimeoutSeconds = 60
    /// The most connections served at once; nil for the default (see `LedgerApplication.Settings`).
    var httpMaxConnections: Int?
    /// The most NDJSON feed streams at once.
    var httpMaxFeedStreams = LedgerApplication.Settings.defaultMaximumFeedStreams
    var database = DatabaseURL.default
    /// Where `database` came from, said when the database is not there: the file, the environment
    /// variable, or the default (and why the default).
    var databaseOrigin = "the default"
    var migrateOnStart = true
    var logLevel = Logger.Level.info
    var apps: [AppSettings] = []
    var trustedRoots: [String] = []
    var verifyReceiptProductionURL = "https://buy.itunes.apple.com/verifyReceipt"
    var verifyReceiptSandboxURL = "https://sandbox.itunes.apple.com/verifyReceipt"
    /// The shared secret sent to verifyReceipt (read from the variable `apple.verify_receipt.shared_secret_env` names).
    var verifyReceiptSharedSecret: String?
    /// Whether JWS nested in a V2 notification get their own signature check too (see `SignedDataVerifier`).
    var checkNestedSignatures = false
    var catalog = ProductCatalog()
    var linkPolicy = LedgerConfiguration.LinkPolicy.transfer
    var linkAppAccountToken = true
    var sandboxGrants = true
    var apiKeys: [APIKey] = []

    /// One accepted app.
    struct AppSettings: Sendable, Equatable {
        var bundleId: String
        var appAppleId: Int64?
        var environments: [String]
        /// The V1 shared secret, read from the environment variable the file names.
        var sharedSecret: String?
        var allowUnsignedLocal: Bool
    }

    /// Reads settings from already-parsed scalar values keyed by dotted path; `sources` names where
    /// each came from (the key itself for the file, or its environment variable), for errors.
    init(values: [String: String], sources: [String: String] = [:]) throws {
        if let host = values["http.host"] { httpHost = host }
        if let port = values["http.port"] { httpPort = Int(port) ?? httpPort }
        if let idle = values["http.idle_timeout_seconds"] { httpIdleTimeoutSeconds = Int(idle) ?? httpIdleTimeoutSeconds }
        if let request = values["http.request_timeout_seconds"] { httpRequestTimeoutSeconds = Int(request) ?? httpRequestTimeoutSeconds }
        if let connections = values["http.max_connections"] { httpMaxConnections = Int(connections) ?? httpMaxConnections }
        if let streams = values["http.max_feed_streams"] { httpMaxFeedStreams = Int(streams) ?? httpMaxFeedStreams }
        if let url = values["database.url"] {
            let source = sources["database.url"] ?? "database.url"
            do {
                database = try DatabaseURL(url)
            } catch {
                throw ConfigurationError(key: source, message: error.message)
            }
            // Secrets come only from the environment: the file is shared, copied and committed.
            if source == "database.url", case .postgres(let postgres) = database, postgres.password != nil {
                throw ConfigurationError(
                    key: source,
                    message: "carries a password, and secrets never go in the file: set the whole URL in SUBLEDGER_DATABASE_URL instead"
                )
            }
        }
        if let migrate = values["database.migrate_on_start"] { migrateOnStart = migrate == "true" }
        if let level = values["log.level"] { logLevel = Logger.Level(rawValue: level) ?? logLevel }
        if let url = values["apple.verify_receipt.production_url"] { verifyReceiptProductionURL = url }
        if let url = values["apple.verify_receipt.sandbox_url"] { verifyReceiptSandboxURL = url }
        if let nested = values["apple.check_nested_signatures"] { checkNestedSignatures = nested == "true" }
        if let policy = values["linking.policy"] { linkPolicy = LedgerConfiguration.LinkPolicy(rawValue: policy) ?? linkPolicy }
        if let token = values["linking.app_account_token"] { linkAppAccountToken = token == "true" }
        if let sandbox = values["entitlements.sandbox_grants"] { sandboxGrants = sandbox == "true" }
    }

    /// The defaults, with no file and no environment.
    init() {}
}
