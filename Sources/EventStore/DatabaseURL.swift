import Foundation

/// Where the events live: `sqlite:PATH` (the embedded default) or a `postgres://` URL.
///
/// PostgreSQL URLs take `user:password@host:port/database` and the query options `sslmode`
/// (`disable`, `prefer`, `require`; default `disable`), `sslrootcert`, `pool_size` (default 10),
/// `read_batches`, `acquire_timeout`, `search_path` and `application_name` (docs/operations.md).
public enum DatabaseURL: Sendable, Hashable, CustomStringConvertible {
    case sqlite(path: String)
    case postgres(PostgresSettings)

    /// The default: a SQLite file in the working directory.
    public static let `default` = DatabaseURL.sqlite(path: "subledger.sqlite")

    /// Parses a database URL, naming what is wrong if it cannot.
    public init(_ text: String) throws(EventStoreError) {
        if text.hasPrefix("sqlite:") {
            var path = String(text.dropFirst("sqlite:".count))
            if path.hasPrefix("//") { path.removeFirst(2) }
            guard !path.isEmpty else {
                throw EventStoreError(.invalidDatabaseURL, "sqlite URL needs a file path, like sqlite:subledger.sqlite")
            }
            self = .sqlite(path: path)
            return
        }
        guard text.hasPrefix("postgres://") || text.hasPrefix("postgresql://") else {
            throw EventStoreError(
                .invalidDatabaseURL,
                "database URL must start with sqlite: or postgres:// (got \(DatabaseURL.redacted(text)))"
            )
        }
        self = .postgres(try PostgresSettings(url: text))
    }

    public var description: String {
        switch self {
        case .sqlite(let path): "sqlite:\(path)"
        case .postgres(let settings): settings.description
        }
    }

    /// The URL with any password replaced, for logs and error messages.
    ///
    /// A password holding `/`, `#` or `?` unescaped makes the URL unreadable to `URLComponents`, or
    /// read with the user information ending at an `@` before that character and the rest of the
    /// password as the host; so when the text from the scheme to its last `@` holds another `@`,
    /// all of it is hidden, the user name too: the text is going into an error message because it
    /// could not be read.
    static func redacted(_ text: String) -> String {
        guard let userInfo = userInfo(in: text) else { return text }
        if !text[userInfo].contains("@"), var components = URLComponents(string: text), components.password != nil {
            components.password = "***"
            if let string = components.string { return string }
        }
        return String(text[..<userInfo.lowerBound]) + "***" + String(text[userInfo.upperBound...])
    }

    /// Whether the URL text names a password (`user:password@`), read as text: a password with an
    /// unescaped `/`, `#` or `?` makes the URL unreadable, and a refusal must not depend on parsing.
    public static func carriesPassword(_ text: String) -> Bool {
        userInfo(in: text).map { text[$0].contains(":") } ?? false
    }

    /// What stands between the scheme's `://` and the last `@` after it, if there is an `@`.
    private static func userInfo(in text: String) -> Range<String.Index>? {
        guard let scheme = text.range(of: "://"), let at = text[scheme.upperBound...].lastIndex(of: "@") else { return nil }
        return scheme.upperBound..<at
    }
}
