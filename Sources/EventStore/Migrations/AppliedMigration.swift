/// A migration that is recorded as applied in the database.
public struct AppliedMigration: Sendable, Hashable {
    /// The migration's number.
    public var version: Int
    /// The file name it was applied from.
    public var name: String
    /// The checksum recorded when it was applied.
    public var checksum: String

    /// Creates a record of an applied migration.
    public init(version: Int, name: String, checksum: String) {
        self.version = version
        self.name = name
        self.checksum = checksum
    }
}
