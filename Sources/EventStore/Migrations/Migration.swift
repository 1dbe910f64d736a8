import Crypto
import Foundation

/// One numbered SQL file from `Migrations/<dialect>/`, applied once, in order, inside a transaction.
public struct Migration: Sendable, Hashable {
    /// The number in the file name (`0001_events.sql` is 1).
    public var version: Int
    /// The file name, recorded in `schema_migrations`.
    public var name: String
    /// The SQL text.
    public var sql: String
    /// Lowercase hex SHA-256 of the file's bytes with LF line ends; an applied file whose checksum
    /// changes is an error.
    public var checksum: String

    /// Creates a migration from a file name and its contents.
    public init(name: String, sql: String) throws(EventStoreError) {
        guard let prefix = name.split(separator: "_").first, let version = Int(prefix), version > 0 else {
            throw EventStoreError(.databaseError, "migration file \(name) does not start with a number, like 0001_name.sql")
        }
        self.version = version
        self.name = name
        // A checkout that turned LF into CRLF (Git's autocrlf) must read as the file that was
        // applied: Swift takes "\r\n" as one Character, so the splitter would see one long
        // comment line, skip every statement and record the file as applied; and its checksum
        // would differ from the one recorded.
        let sql = sql.replacingOccurrences(of: "\r\n", with: "\n")
        self.sql = sql
        self.checksum = Hex.string(SHA256.hash(data: Data(sql.utf8)))
    }
}
