/// The rule for names the stores keep (stream ids, event types, dedupe keys, document models and
/// keys): none holds U+0000. PostgreSQL refuses such text even in a comparison, and SQLite stores it
/// but reads it back cut at the NUL, so a name holding one is refused as `invalid_event` where it
/// would be written or locked, alike on both stores, and a read of one finds nothing.
public enum StoredName {
    /// Whether `text` can be a stored name (the ledger checks its facts' ids with it, so it refuses
    /// such a fact before its write).
    public static func isStorable(_ text: String) -> Bool {
        !text.utf8.contains(0)
    }

    /// Whether a document can be stored as `model` / `key`.
    static func isStorable(model: String, key: String) -> Bool {
        isStorable(model) && isStorable(key)
    }

    /// Refuses `text`, named `field` in the error, unless it can be a stored name.
    static func require(_ text: String, field: String) throws(EventStoreError) {
        guard isStorable(text) else {
            throw EventStoreError(.invalidEvent, "\(field) must not hold U+0000 (NUL)")
        }
    }

    /// Refuses a document name that cannot be stored.
    static func require(model: String, key: String) throws(EventStoreError) {
        guard isStorable(model: model, key: key) else {
            throw EventStoreError(.invalidEvent, "a document's model and key must not hold U+0000 (NUL): \(model.debugDescription) \(key.debugDescription)")
        }
    }

    /// Refuses a set of documents that would replace the read models unless each name can be stored
    /// and none comes twice (PostgreSQL's unique key answered that as a lost race, SQLite's as a
    /// database error).
    static func require(replacing documents: [ProjectionDocument]) throws(EventStoreError) {
        // By bytes, as the databases compare names: Swift's String equality would take "é" and
        // "e" with a combining accent for one name, which both stores keep as two.
        var seen: Set<[UInt8]> = []
        seen.reserveCapacity(documents.count)
        for document in documents {
            try require(model: document.model, key: document.key)
            guard seen.insert(Array(document.model.utf8) + [0] + Array(document.key.utf8)).inserted else {
                throw EventStoreError(.invalidEvent, "the read models to swap in hold \(document.model) \(document.key.debugDescription) twice")
            }
        }
    }

    /// Refuses what a write's lock statement names before its appends, as the appends would.
    static func require(streams: [String], dedupeKeys: [String], documents: [DocumentKey] = []) throws(EventStoreError) {
        for stream in streams { try require(stream, field: "stream id") }
        for key in dedupeKeys { try require(key, field: "dedupe key") }
        for document in documents { try require(model: document.model, key: document.key) }
    }
}
