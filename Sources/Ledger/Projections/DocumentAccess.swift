import EventStore
import Foundation

/// The read models a projector reads and writes, typed: the store's transaction when projecting
/// inline, dictionaries in memory when replaying. One projector serves both, so a rebuilt read model
/// comes out identical to the live one.
public protocol LedgerDocuments: Sendable {
    func chain(_ originalTransactionId: String) async throws -> ChainDocument?
    func putChain(_ document: ChainDocument) async throws
    func user(_ userId: String) async throws -> UserDocument?
    func putUser(_ document: UserDocument) async throws
    func owner(_ originalTransactionId: String) async throws -> OwnerDocument?
    func putOwner(_ document: OwnerDocument, chain originalTransactionId: String) async throws
    /// Takes the exclusive lock on a document before reading it for a change.
    func lock(model: String, key: String) async throws
    /// Locks, reads (or starts empty), changes and writes back a chain's document.
    func updateChain(_ originalTransactionId: String, _ change: (inout ChainDocument) -> Void) async throws
    /// Locks, reads (or starts empty), changes and writes back a user's document.
    func updateUser(_ userId: String, _ change: (inout UserDocument) -> Void) async throws
}

extension LedgerDocuments {
    public func updateChain(_ id: String, _ change: (inout ChainDocument) -> Void) async throws {
        try await lock(model: ReadModel.subscriptionState, key: id)
        var document = try await chain(id) ?? ChainDocument(state: ChainState(originalTransactionId: id), position: 0)
        change(&document)
        try await putChain(document)
    }

    public func updateUser(_ id: String, _ change: (inout UserDocument) -> Void) async throws {
        try await lock(model: ReadModel.userEntitlements, key: id)
        var document = try await user(id) ?? UserDocument(state: UserState(userId: id), position: 0)
        change(&document)
        try await putUser(document)
    }
}

/// Read models as JSON documents inside the store's transaction.
struct TransactionDocuments: LedgerDocuments {
    let transaction: any ProjectionTransaction

    private static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return encoder
    }()

    private func load<T: Decodable>(_ type: T.Type, _ model: String, _ key: String) async throws -> T? {
        guard let data = try await transaction.document(model: model, key: key) else { return nil }
        return try JSONDecoder().decode(T.self, from: data)
    }

    private func store(_ value: some Encodable, _ model: String, _ key: String) async throws {
        try await transaction.putDocument(model: model, key: key, data: try Self.encoder.encode(value))
    }

    func chain(_ id: String) async throws -> ChainDocument? {
        guard let data = try await transaction.document(model: ReadModel.subscriptionState, key: id) else { return nil }
        return try ChainDocument.decode(from: data, decoder: JSONDecoder())
    }
    func putChain(_ document: ChainDocument) async throws {
        try await transaction.putDocument(model: ReadModel.subscriptionState, key: document.state.originalTransactionId, data: document.encodedJSON())
    }
    func user(_ id: String) async throws -> UserDocument? { try await load(UserDocument.self, ReadModel.userEntitlements, id) }
    func putUser(_ document: UserDocument) async throws { try await store(document, ReadModel.userEntitlements, document.state.userId) }
    func owner(_ id: String) async throws -> OwnerDocument? { try await load(OwnerDocument.self, ReadModel.chainOwner, id) }
    func putOwner(_ document: OwnerDocument, chain id: String) async throws { try await store(document, ReadModel.chainOwner, id) }
    func lock(model: String, key: String) async throws { try await transaction.lock(model: model, key: key) }

    // Lock and read in one round trip where the store can.
    func updateChain(_ id: String, _ change: (inout ChainDocument) -> Void) async throws {
        var document = try await transaction.lockAndRead(model: ReadModel.subscriptionState, key: id)
            .map { try ChainDocument.decode(from: $0, decoder: JSONDecoder()) }
            ?? ChainDocument(state: ChainState(originalTransactionId: id), position: 0)
        change(&document)
        try await putChain(document)
    }

    func updateUser(_ id: String, _ change: (inout UserDocument) -> Void) async throws {
        var document = try await transaction.lockAndRead(model: ReadModel.userEntitlements, key: id)
            .map { try JSONDecoder().decode(UserDocument.self, from: $0) }
            ?? UserDocument(state: UserState(userId: id), position: 0)
        change(&document)
        try await putUser(document)
    }
}
