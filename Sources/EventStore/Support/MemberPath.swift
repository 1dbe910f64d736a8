/// The rule for what a related-documents read names besides its document: the JSON member path to
/// the related keys, and the related documents' model. A path step holds neither `"` (SQLite's path
/// syntax has no escape for one; PostgreSQL took it) nor U+0000, and the model no U+0000, so both
/// stores refuse such a read alike, as `invalid_event`, before any statement.
enum MemberPath {
    /// Refuses a read whose `path` or `relatedModel` could not be asked of both stores alike.
    static func require(_ path: [String], relatedModel: String) throws(EventStoreError) {
        try StoredName.require(relatedModel, field: "a related model")
        for step in path where step.utf8.contains(UInt8(ascii: "\"")) || step.utf8.contains(0) {
            throw EventStoreError(.invalidEvent, "a JSON path step may hold neither a double quote nor U+0000 (NUL): \(step.debugDescription)")
        }
    }

    /// The path in SQLite's syntax: every step quoted, so one with a dot or a bracket is still one step.
    static func sqlite(_ path: [String]) -> String {
        "$" + path.map { ".\"" + $0 + "\"" }.joined()
    }
}
