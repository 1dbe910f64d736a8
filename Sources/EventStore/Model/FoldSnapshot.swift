/// The history committed at one moment, which a fold reads page by page in position order.
///
/// PostgreSQL gives positions at insert but makes events visible at commit, so a fold that pages by
/// position through a moving log could pass a position before its event commits. Against a snapshot,
/// every event it covers has committed, and none is skipped. The value is the adapter's own; callers
/// only hand it back.
public struct FoldSnapshot: Sendable, Hashable {
    /// PostgreSQL: the `pg_snapshot` text (`xmin:xmax:xip,...`). SQLite: the highest position.
    public let value: String

    /// Wraps an adapter's snapshot text.
    public init(_ value: String) {
        self.value = value
    }
}
