import Foundation

/// Connection settings for PostgreSQL, parsed from a URL.
public struct PostgresSettings: Sendable, Hashable, CustomStringConvertible {
    /// How to use TLS.
    public enum TLSMode: String, Sendable, Hashable {
        case disable, prefer, require
    }

    public var host: String
    public var port: Int
    public var username: String
    public var password: String?
    public var database: String?
    public var tls: TLSMode
    public var poolSize: Int
    /// How many batched entitlement reads may run at once; reads arriving meanwhile join the next batch.
    public var readBatchesInFlight: Int
    /// How long a request waits for a pooled connection before it fails as unavailable (503).
    public var acquireTimeout: Duration
    /// Schema search path for every connection; tests use it to isolate one schema per test.
    public var searchPath: String?
    /// A PEM file of the root certificates the server's certificate must chain to, in place of the
    /// system's (a hosted database's own CA); only with `prefer` or `require`.
    public var tlsRootCertificates: String?
    /// The name the connections give PostgreSQL (`pg_stat_activity.application_name`).
    public var applicationName: String

    /// Parses `postgres://user:password@host:port/database?options`.
    public init(url text: String) throws(EventStoreError) {
        guard let components = URLComponents(string: text) else {
            throw EventStoreError(
                .invalidDatabaseURL,
                "cannot read PostgreSQL URL \(DatabaseURL.redacted(text)): it is postgres://user:password@host:port/database, "
                    + "the port a number, and a /, #, ? or @ in the password percent-encoded"
            )
        }
        guard let host = components.host, !host.isEmpty else {
            throw EventStoreError(.invalidDatabaseURL, "PostgreSQL URL \(DatabaseURL.redacted(text)) names no host: postgres://user@host:port/database")
        }
        self.host = host
        self.port = components.port ?? 5432
        self.username = components.user.flatMap { $0.removingPercentEncoding } ?? "postgres"
        self.password = components.password.flatMap { $0.removingPercentEncoding }
        // `postgres://u:12/34@h/db` reads as host u, port 12 and database "34@h/db" (and with # or ?
        // instead of /, a fragment or options holding the rest): a password holding an unescaped /,
        // # or ? leaves the user information's @ after the host (a / in the database name too), or
        // a fragment, which no real URL here has. An option's value may hold a / (sslrootcert).
        let database = components.percentEncodedPath.dropFirst()
        let options = components.percentEncodedQuery ?? ""
        guard components.fragment == nil, !database.contains("/"), !(database + options).contains("@") else {
            throw EventStoreError(
                .invalidDatabaseURL,
                "cannot read PostgreSQL URL \(DatabaseURL.redacted(text)): percent-encode a /, #, ? or @ in the password or the database name"
            )
        }
        let path = components.path.hasPrefix("/") ? String(components.path.dropFirst()) : components.path
        self.database = path.isEmpty ? nil : path
        self.tls = .disable
        self.poolSize = 10
        self.readBatchesInFlight = 1
        self.acquireTimeout = .seconds(5)
        self.searchPath = nil
        self.tlsRootCertificates = nil
        self.applicationName = "subledger"
        for item in components.queryItems ?? [] {
            let value = item.value ?? ""
            switch item.name {
            case "sslmode":
                guard let mode = TLSMode(rawValue: value) else {
                    throw EventStoreError(.invalidDatabaseURL, "sslmode must be disable, prefer or require (got \(value))")
                }
                self.tls = mode
            case "pool_size":
                guard let size = Int(value), (1...200).contains(size) else {
                    throw EventStoreError(.invalidDatabaseURL, "pool_size must be a number from 1 to 200 (got \(value))")
                }
                self.poolSize = size
            case "read_batches":
                guard let batches = Int(value), (1...200).contains(batches) else {
                    throw EventStoreError(.invalidDatabaseURL, "read_batches must be a number from 1 to 200 (got \(value))")
                }
                self.readBatchesInFlight = batches
            case "acquire_timeout":
                guard let seconds = Int(value), (1...600).contains(seconds) else {
                    throw EventStoreError(.invalidDatabaseURL, "acquire_timeout must be a number of seconds from 1 to 600 (got \(value))")
                }
                self.acquireTimeout = .seconds(seconds)
            case "search_path":
                self.searchPath = value
            case "sslrootcert":
                self.tlsRootCertificates = value
            case "application_name":
                // PostgreSQL keeps 63 bytes of printable ASCII and replaces anything else.
                guard (1...63).contains(value.utf8.count), value.utf8.allSatisfy({ (0x20...0x7E).contains($0) }) else {
                    throw EventStoreError(.invalidDatabaseURL, "application_name must be 1 to 63 printable ASCII characters (got \(value))")
                }
                self.applicationName = value
            default:
                throw EventStoreError(
                    .invalidDatabaseURL,
                    "unknown PostgreSQL URL option \(item.name); known: sslmode, sslrootcert, pool_size, read_batches, acquire_timeout, search_path, application_name"
                )
            }
        }
        if let path = tlsRootCertificates {
            guard tls != .disable else {
                throw EventStoreError(.invalidDatabaseURL, "sslrootcert needs sslmode=require (or prefer): with sslmode=disable no certificate is checked")
            }
            try Self.checkRootCertificates(at: path)
        }
    }

    public var description: String {
        "postgres://\(username)\(password == nil ? "" : ":***")@\(host):\(port)/\(database ?? "")"
    }
}
