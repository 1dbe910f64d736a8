/// One scalar setting: its dotted YAML key, its environment override, and how to read its text.
struct ConfigurationKey: Sendable {
    /// What a value must look like.
    enum Kind: Sendable {
        case string
        case integer(ClosedRange<Int>)
        case boolean
        case choice([String])
        /// An http or https URL with a host.
        case url
    }

    /// The dotted path in the YAML file, for example `http.port`.
    var path: String
    var kind: Kind
    /// One line for `docs/operations.md` and error messages.
    var help: String

    /// The environment variable that overrides this key: `http.port` → `SUBLEDGER_HTTP_PORT`.
    var environmentName: String {
        "SUBLEDGER_" + path.uppercased().map { $0 == "." || $0 == "-" ? "_" : $0 }.map(String.init).joined()
    }

    /// Every key subledger reads. Adding a setting starts here.
    static let all: [ConfigurationKey] = [
        ConfigurationKey(path: "http.host", kind: .string, help: "address to listen on"),
        ConfigurationKey(path: "http.port", kind: .integer(0...65535), help: "port to listen on (0 picks a free one)"),
        ConfigurationKey(path: "http.idle_timeout_seconds", kind: .integer(1...3600), help: "seconds a connection may send nothing, mid-request or between requests, before it is closed"),
        ConfigurationKey(path: "http.request_timeout_seconds", kind: .integer(1...3600), help: "seconds a connection has to deliver its next whole request, so a client trickling bytes is closed too"),
        ConfigurationKey(path: "http.max_connections", kind: .integer(1...1_000_000), help: "the most connections served at once; one more is answered 503 too_many_connections (default 16384, or the open-file limit less 256 when lower, at least 64)"),
        ConfigurationKey(path: "http.max_feed_streams", kind: .integer(1...100_000), help: "the most NDJSON streams of GET /v1/events at once; one more is answered 503 too_many_streams (default 64)"),
        ConfigurationKey(path: "database.url", kind: .string, help: "sqlite:PATH or postgres://user@host:port/db (a password only in SUBLEDGER_DATABASE_URL)"),
        ConfigurationKey(path: "database.migrate_on_start", kind: .boolean, help: "apply pending migrations when serve starts"),
        ConfigurationKey(path: "log.level", kind: .choice(["trace", "debug", "info", "notice", "warning", "error", "critical"]), help: "least severe log level written"),
        ConfigurationKey(path: "apple.verify_receipt.production_url", kind: .url, help: "Apple's verifyReceipt production endpoint"),
        ConfigurationKey(path: "apple.verify_receipt.sandbox_url", kind: .url, help: "Apple's verifyReceipt sandbox endpoint"),
        ConfigurationKey(path: "apple.verify_receipt.shared_secret_env", kind: .string, help: "environment variable holding the shared secret sent to verifyReceipt"),
        ConfigurationKey(path: "apple.check_nested_signatures", kind: .boolean, help: "also check the signatures of the JWS nested in a V2 notification, which the notification's signature already covers"),
        ConfigurationKey(path: "linking.app_account_token", kind: .boolean, help: "a transaction's appAccountToken claims the chain for the user with that id"),
        ConfigurationKey(path: "linking.policy", kind: .choice(["transfer", "keep"]), help: "who owns a chain another user claims: the latest claimant (transfer) or the first (keep)"),
        ConfigurationKey(path: "entitlements.sandbox_grants", kind: .boolean, help: "whether sandbox purchases grant entitlements (App Review needs this)"),
    ]

    /// Settings that are lists or maps rather than single values; they come from the file only.
    static let structured: [String: String] = [
        "apple.apps": "apps accepted: bundle_id, app_apple_id, environments, shared_secret_env, allow_unsigned_local",
        "apple.trusted_roots": "extra trusted root certificates (DER or PEM files); Apple Root CA - G3 is always trusted",
        "products": "product id -> { entitlements: [ids], duration_days: 1 to 36525 for non-renewing }",
        "auth.keys": "API keys: { name, scopes: [read, ingest, admin], sha256: hex SHA-256 of the secret }",
    ]
}
