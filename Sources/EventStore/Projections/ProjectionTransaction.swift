import Foundation

/// Read-model access inside the store's transaction.
///
/// Read models are JSON documents keyed by `(model, key)`, for example `("subscription_state",
/// "2000000123")`. They are disposable: any of them can be rebuilt by folding the events again.
public protocol ProjectionTransaction: Sendable {
    /// The current document, or nil if there is none.
    func document(model: String, key: String) async throws -> Data?
    /// Creates or replaces a document.
    func putDocument(model: String, key: String, data: Data) async throws
    /// Removes a document if it exists.
    func deleteDocument(model: String, key: String) async throws
    /// Holds an exclusive lock on `(model, key)` until the transaction ends, so two transactions that
    /// read, change and write the same document (from different streams) cannot lose an update.
    func lock(model: String, key: String) async throws
    /// Takes the lock on `(model, key)`, then reads the document as the lock's last holder left it.
    func lockAndRead(model: String, key: String) async throws -> Data?
    /// Takes the locks on several documents in the given order, then reads them all (one round trip
    /// in PostgreSQL); nil for a document that does not exist.
    func lockAndRead(_ documents: [DocumentKey]) async throws -> [Data?]
    /// Takes the locks appends to `streams` with `dedupeKeys` would take, then locks and reads
    /// `documents` as `lockAndRead(_:)` does: one round trip in PostgreSQL, after which those
    /// appends cost one round trip each instead of two. Heads are locked before documents, as the
    /// write paths take them.
    func lockAndRead(_ documents: [DocumentKey], beforeAppendingTo streams: [String], dedupeKeys: [String]) async throws -> [Data?]
    /// Creates or replaces several documents with distinct keys (one round trip in PostgreSQL).
    func putDocuments(_ documents: [ProjectionDocument]) async throws
    /// Appends events to a stream inside this transaction, with the same deduplication and stream
    /// versions as `EventStore.append`: they commit or roll back with everything else in it, so a
    /// fact and the events it implies (a link) land together or not at all.
    func append(to stream: String, _ events: [NewEvent], expectedVersion: ExpectedVersion) async throws -> AppendResult
    /// Appends to several streams inside this transaction, with no expected version, as `append(to:)`
    /// would one after another in this order: a stream may come more than once, and an event whose
    /// dedupe key is stored or came earlier in the call is a duplicate. Two round trips in PostgreSQL
    /// however many streams (one after `lockAndRead(_:beforeAppendingTo:dedupeKeys:)` named them
    /// all), so a batch of facts costs the same statements as one.
    func append(_ appends: [StreamAppend]) async throws -> [AppendResult]
}

extension ProjectionTransaction {
    public func lockAndRead(model: String, key: String) async throws -> Data? {
        try await lock(model: model, key: key)
        return try await document(model: model, key: key)
    }

    /// The documents alone, for stores where a statement costs no round trip (SQLite): the appends
    /// take their own locks. Names the appends would refuse are refused here already, as
    /// PostgreSQL's lock statement refuses them.
    public func lockAndRead(_ documents: [DocumentKey], beforeAppendingTo streams: [String], dedupeKeys: [String]) async throws -> [Data?] {
        try StoredName.require(streams: streams, dedupeKeys: dedupeKeys)
        return try await lockAndRead(documents)
    }

    /// One document at a time, for stores where a statement costs no round trip (SQLite).
    public func lockAndRead(_ documents: [DocumentKey]) async throws -> [Data?] {
        var found: [Data?] = []
        for document in documents {
            found.append(try await lockAndRead(model: document.model, key: document.key))
        }
        return found
    }

    /// One stream at a time, for stores where a statement costs no round trip (SQLite).
    public func append(_ appends: [StreamAppend]) async throws -> [AppendResult] {
        try await appendEachPart(appends)
    }

    /// `append(_:)` as a loop of `append(to:)`.
    func appendEachPart(_ appends: [StreamAppend]) async throws -> [AppendResult] {
        var results: [AppendResult] = []
        for part in appends {
            results.append(try await append(to: part.stream, part.events, expectedVersion: .any))
        }
        return results
    }

    /// One document at a time, for stores where a statement costs no round trip (SQLite).
    public func putDocuments(_ documents: [ProjectionDocument]) async throws {
        for document in documents {
            try await putDocument(model: document.model, key: document.key, data: document.data)
        }
    }
}
