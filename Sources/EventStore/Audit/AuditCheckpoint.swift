import Foundation

/// Each stream's version and the hash of its event at that version, as an audit found them.
///
/// The hash chains have no key, so whoever can write the database can change or remove events and
/// compute the hashes again. A checkpoint kept where the database's operators cannot change it
/// closes that: a later audit against it finds any stream whose history up to the recorded version
/// was changed, re-hashed or removed, events appended since being expected.
public struct AuditCheckpoint: Sendable, Hashable {
    /// A stream's version and the hash of its event at that version.
    public struct Entry: Sendable, Hashable {
        public var version: Int64
        public var hash: Data

        /// Creates an entry.
        public init(version: Int64, hash: Data) {
            self.version = version
            self.hash = hash
        }
    }

    /// The entries by stream id.
    public var streams: [String: Entry]

    /// Creates a checkpoint.
    public init(streams: [String: Entry] = [:]) {
        self.streams = streams
    }
}
