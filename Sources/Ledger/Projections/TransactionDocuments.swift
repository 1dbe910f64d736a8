import EventStore
import Foundation
import Synchronization

/// Read models inside the store's transaction, as a unit of work.
///
/// Each document is locked and read once per transaction (several at once with `prefetch`), changed
/// in memory, and every changed document is written by `flush` in one statement. In PostgreSQL each
/// statement is a round trip, so an ingest that touches a chain, its owner and a user costs two
/// instead of six. Use `withDocuments`, which flushes when the projection is done.
final class TransactionDocuments: LedgerDocuments {
    let transaction: any ProjectionTransaction

    private struct State {
        /// Documents locked and read in this transaction, as they stand now (nil: none yet).
        var read: [DocumentKey: Data?] = [:]
        /// Documents locked without being read (the owner lock a link takes).
        var locked: Set<DocumentKey> = []
        /// Changed documents, in the order of their first change.
        var changed: [DocumentKey] = []
    }

    private let state = Mutex(State())

    init(transaction: any ProjectionTransaction) {
        self.transaction = transaction
    }

    /// Runs a projection over the transaction's documents, then writes what it changed.
    ///
    /// `prefetch` names the documents to lock and read up front. The appends the body will make to
    /// `streams` with `dedupeKeys` take their locks in the same round trip, before the documents.
    static func withDocuments(
        _ transaction: any ProjectionTransaction,
        prefetch: [DocumentKey] = [],
        beforeAppendingTo streams: [String] = [],
        dedupeKeys: [String] = [],
        _ body: (TransactionDocuments) async throws -> Void
    ) async throws {
        let documents = TransactionDocuments(transaction: transaction)
        try await documents.prefetch(prefetch, beforeAppendingTo: streams, dedupeKeys: dedupeKeys)
        try await body(documents)
        try await documents.flush()
    }

    /// Locks and reads, in one round trip and in the given order, the documents not already held,
    /// after the locks appends to `streams` with `dedupeKeys` will take.
    func prefetch(_ keys: [DocumentKey], beforeAppendingTo streams: [String] = [], dedupeKeys: [String] = []) async throws {
        var seen: Set<DocumentKey> = []
        let missing = state.withLock { state in
            keys.filter { state.read[$0] == nil && !state.locked.contains($0) && seen.insert($0).inserted }
        }
        guard !missing.isEmpty || !streams.isEmpty || !dedupeKeys.isEmpty else { return }
        let found = try await transaction.lockAndRead(missing, beforeAppendingTo: streams, dedupeKeys: dedupeKeys)
        state.withLock { state in
            for (key, data) in zip(missing, found) { state.read[key] = .some(data) }
        }
    }

    /// Writes every changed document in one statement.
    func flush() async throws {
        let documents = state.withLock { state -> [ProjectionDocument] in
            let changed = state.changed.compactMap { key in
                state.read[key].flatMap { $0 }.map { ProjectionDocument(model: key.model, key: key.key, data: $0) }
            }
            state.changed.removeAll()
            return changed
        }
        try await transaction.putDocuments(documents)
    }

    /// The document as this transaction sees it, locked.
    private func lockAndRead(_ key: DocumentKey) async throws -> Data? {
        if let cached = state.withLock({ $0.read[key] }) { return cached }
        let held = state.withLock { $0.locked.contains(key) }
        let data = held
            ? try await transaction.document(model: key.model, key: key.key)
            : try await transaction.lockAndRead(model: key.model, key: key.key)
        state.withLock { $0.read[key] = .some(data) }
        return data
    }

    private func write(_ data: Data, _ key: DocumentKey) {
        state.withLock { state in
            if !state.changed.contains(key) { state.changed.append(key) }
            state.read[key] = .some(data)
        }
    }

    private static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return encoder
    }()

    /// The chain's owner, read under the owner document's lock.
    func lockAndReadOwner(chain: String) async throws -> OwnerDocument? {
        try await lockAndRead(DocumentKey(model: ReadModel.chainOwner, key: chain))
            .map { try OwnerDocument.decode(from: $0) }
    }

    /// The user's fold state as this transaction sees it (read under its document's lock); empty for
    /// a user not seen before.
    func userState(_ id: String) async throws -> UserState {
        try await lockAndRead(DocumentKey(model: ReadModel.userEntitlements, key: id))
            .map { try UserDocument.decode(from: $0).state } ?? UserState(userId: id)
    }

    /// The chain's fold state as this transaction sees it (read under its document's lock); empty for
    /// a chain not seen before.
    func chainState(_ id: String) async throws -> ChainState {
        guard let data = try await lockAndRead(DocumentKey(model: ReadModel.subscriptionState, key: id)) else {
            return ChainState(originalTransactionId: id)
        }
        return try ChainDocument.decode(from: data).state
    }

    func putOwner(_ document: OwnerDocument, chain id: String) async throws {
        write(document.encodedJSON(), DocumentKey(model: ReadModel.chainOwner, key: id))
    }

    func lock(model: String, key: String) async throws {
        let key = DocumentKey(model: model, key: key)
        let held = state.withLock { $0.read[key] != nil || $0.locked.contains(key) }
        guard !held else { return }
        try await transaction.lock(model: key.model, key: key.key)
        state.withLock { _ = $0.locked.insert(key) }
    }

    func updateChain(_ id: String, _ change: (inout ChainDocument) -> Void) async throws {
        try await update(
            DocumentKey(model: ReadModel.subscriptionState, key: id),
            empty: ChainDocument(state: ChainState(originalTransactionId: id), position: 0),
            change, encode: { $0.encodedJSON() }
        )
    }

    func updateUser(_ id: String, _ change: (inout UserDocument) -> Void) async throws {
        try await update(
            DocumentKey(model: ReadModel.userEntitlements, key: id),
            empty: UserDocument(state: UserState(userId: id), position: 0),
            change, encode: { try $0.encodedJSON(fallback: Self.encoder) }
        )
    }

    /// Reads (or starts empty), changes and keeps a document for `flush`.
    private func update<Document: ScannedDocument>(
        _ key: DocumentKey,
        empty: @autoclosure () -> Document,
        _ change: (inout Document) -> Void,
        encode: (Document) throws -> Data
    ) async throws {
        var document = try await lockAndRead(key).map { try Document.decode(from: $0) } ?? empty()
        change(&document)
        write(try encode(document), key)
    }
}
