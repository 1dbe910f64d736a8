import Foundation

/// A stream's current version and the hash of its last event, read before an append.
struct StreamHead: Sendable, Hashable {
    var version: Int64
    var hash: Data

    /// The head of a stream that has no events yet.
    static let empty = StreamHead(version: 0, hash: EventHasher.genesis)
}
