/// What the caller believes about a stream's version before appending: optimistic concurrency control.
///
/// A stream's version is the number of events in it; an empty or unknown stream has version 0.
public enum ExpectedVersion: Sendable, Hashable, CustomStringConvertible {
    /// Append whatever the current version is.
    case any
    /// The stream must not exist yet (version 0).
    case noStream
    /// The stream must be at exactly this version.
    case exact(Int64)

    /// Whether a stream currently at `version` satisfies this expectation.
    public func isSatisfied(byCurrent version: Int64) -> Bool {
        switch self {
        case .any: true
        case .noStream: version == 0
        case .exact(let expected): version == expected
        }
    }

    public var description: String {
        switch self {
        case .any: "any"
        case .noStream: "no stream"
        case .exact(let version): "version \(version)"
        }
    }
}
