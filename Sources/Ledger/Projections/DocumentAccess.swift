import EventStore
import Foundation
import Synchronization

/// The read models a projector reads and writes, typed: the store's transaction when projecting
/// inline, dictionaries in memory when replaying. One projector serves both, so a rebuilt read model
/// comes out identical to the live one.
public protocol LedgerDocuments: Sendable {
    /// Locks, reads (or starts empty), changes and writes back a chain's document.
    func updateChain(_ originalTransactionId: String, _ change: (inout ChainDocument) -> Void) async throws
    /// Locks, reads (or starts empty), changes and writes back a user's document.
    func updateUser(_ userId: String, _ change: (inout UserDocument) -> Void) async throws
    /// Records who owns a chain now (after `lock` on the owner document).
    func putOwner(_ document: OwnerDocument, chain originalTransactionId: String) async throws
    /// Takes the exclusive lock on a document before reading it for a change.
    func lock(model: String, key: String) async throws
}

/// Read models as JSON documents inside the store's transaction.
///
/// It remembers the locks it took, so a document locked earlier in the transaction (an owner read
/// before a link is decided) is not locked again: each lock is a round trip in PostgreSQL.
final class TransactionDocuments: LedgerDocuments {
    let transaction: any ProjectionTransaction
    private let held = Mutex<Set<DocumentName>>([])

    private struct DocumentName: Hashable {
        let model: String
        let key: String
    }

    init(transaction: any ProjectionTransaction) {
        self.transaction = transaction
    }

    /// Takes the lock unless this transaction holds it already, then reads the document.
    private func lockAndRead(model: String, key: String) async throws -> Data? {
        let name = DocumentName(model: model, key: key)
        if held.withLock({ $0.contains(name) }) {
            return try await transaction.document(model: model, key: key)
        }
        let data = try await transaction.lockAndRead(model: model, key: key)
        held.withLock { _ = $0.insert(name) }
        return data
    }

    /// The chain's owner, read under the owner document's lock.
    func lockAndReadOwner(chain: String) async throws -> OwnerDocument? {
        try await lockAndRead(model: ReadModel.chainOwner, key: chain).map { try JSONDecoder().decode(OwnerDocument.self, from: $0) }
    }

    private static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return encoder
    }()

    private func store(_ value: some Encodable, _ model: String, _ key: String) async throws {
        try await transaction.putDocument(model: model, key: key, data: try Self.encoder.encode(value))
    }

    func putOwner(_ document: OwnerDocument, chain id: String) async throws { try await store(document, ReadModel.chainOwner, id) }
    func lock(model: String, key: String) async throws {
        let name = DocumentName(model: model, key: key)
        guard !held.withLock({ $0.contains(name) }) else { return }
        try await transaction.lock(model: model, key: key)
        held.withLock { _ = $0.insert(name) }
    }

    // The lock and the read are one round trip where the store can (PostgreSQL).
    func updateChain(_ id: String, _ change: (inout ChainDocument) -> Void) async throws {
        var document = try await lockAndRead(model: ReadModel.subscriptionState, key: id)
            .map { try ChainDocument.decode(from: $0, decoder: JSONDecoder()) }
            ?? ChainDocument(state: ChainState(originalTransactionId: id), position: 0)
        change(&document)
        try await transaction.putDocument(model: ReadModel.subscriptionState, key: id, data: document.encodedJSON())
    }

    func updateUser(_ id: String, _ change: (inout UserDocument) -> Void) async throws {
        var document = try await lockAndRead(model: ReadModel.userEntitlements, key: id)
            .map { try JSONDecoder().decode(UserDocument.self, from: $0) }
            ?? UserDocument(state: UserState(userId: id), position: 0)
        change(&document)
        try await store(document, ReadModel.userEntitlements, id)
    }
}
