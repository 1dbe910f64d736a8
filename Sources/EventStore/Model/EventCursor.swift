/// A position in the global event log that a catch-up reader resumes after.
///
/// PostgreSQL orders the log by `(transaction id, position)` so that an event whose transaction commits
/// late is still read after the cursor has moved past higher positions; SQLite commits in position order,
/// so its `transaction` component is always 0. The text form is `"<transaction>-<position>"`.
public struct EventCursor: Sendable, Hashable, Comparable, Codable, LosslessStringConvertible {
    /// The committing transaction's id (PostgreSQL `xid8`), 0 in SQLite.
    public var transaction: UInt64
    /// The event's global position.
    public var position: Int64

    /// The cursor before the first event.
    public static let start = EventCursor(transaction: 0, position: 0)

    /// Creates a cursor from its two components.
    public init(transaction: UInt64, position: Int64) {
        self.transaction = transaction
        self.position = position
    }

    /// Parses the text form `"<transaction>-<position>"`; a bare number is read as a position. Each
    /// part is ASCII digits only: a sign (`+1-2`) is not a form this type writes, so it is refused.
    public init?(_ description: String) {
        let parts = description.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.allSatisfy(\.isASCIIDigits) else { return nil }
        switch parts.count {
        case 1:
            guard let position = Int64(parts[0]) else { return nil }
            self.init(transaction: 0, position: position)
        case 2:
            guard let transaction = UInt64(parts[0]), let position = Int64(parts[1]) else {
                return nil
            }
            self.init(transaction: transaction, position: position)
        default:
            return nil
        }
    }

    public var description: String { "\(transaction)-\(position)" }

    public static func < (lhs: EventCursor, rhs: EventCursor) -> Bool {
        (lhs.transaction, lhs.position) < (rhs.transaction, rhs.position)
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let text = try container.decode(String.self)
        guard let cursor = EventCursor(text) else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "not an event cursor: \(text)")
        }
        self = cursor
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }
}
