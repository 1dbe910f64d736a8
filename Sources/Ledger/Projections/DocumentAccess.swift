import EventStore
import Foundation

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
struct TransactionDocuments: LedgerDocuments {
    let transaction: any ProjectionTransaction

    private static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return encoder
    }()

    private func store(_ value: some Encodable, _ model: String, _ key: String) async throws {
        try await transaction.putDocument(model: model, key: key, data: try Self.encoder.encode(value))
    }

    func putOwner(_ document: OwnerDocument, chain id: String) async throws { try await store(document, ReadModel.chainOwner, id) }
    func lock(model: String, key: String) async throws { try await transaction.lock(model: model, key: key) }

    // The lock and the read are one round trip where the store can (PostgreSQL).
    func updateChain(_ id: String, _ change: (inout ChainDocument) -> Void) async throws {
        var document = try await transaction.lockAndRead(model: ReadModel.subscriptionState, key: id)
            .map { try ChainDocument.decode(from: $0, decoder: JSONDecoder()) }
            ?? ChainDocument(state: ChainState(originalTransactionId: id), position: 0)
        change(&document)
        try await transaction.putDocument(model: ReadModel.subscriptionState, key: id, data: document.encodedJSON())
    }

    func updateUser(_ id: String, _ change: (inout UserDocument) -> Void) async throws {
        var document = try await transaction.lockAndRead(model: ReadModel.userEntitlements, key: id)
            .map { try JSONDecoder().decode(UserDocument.self, from: $0) }
            ?? UserDocument(state: UserState(userId: id), position: 0)
        change(&document)
        try await store(document, ReadModel.userEntitlements, id)
    }
}
