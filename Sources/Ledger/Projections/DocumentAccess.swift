import EventStore
import Foundation

/// Where a projector reads and writes read-model documents: the store's transaction when projecting
/// inline, a dictionary when replaying.
public protocol DocumentAccess: Sendable {
    func document(model: String, key: String) async throws -> Data?
    func putDocument(model: String, key: String, data: Data) async throws
    func lock(model: String, key: String) async throws
}

/// The store's transaction is a document access as it is.
struct TransactionDocuments: DocumentAccess {
    let transaction: any ProjectionTransaction

    func document(model: String, key: String) async throws -> Data? {
        try await transaction.document(model: model, key: key)
    }

    func putDocument(model: String, key: String, data: Data) async throws {
        try await transaction.putDocument(model: model, key: key, data: data)
    }

    func lock(model: String, key: String) async throws {
        try await transaction.lock(model: model, key: key)
    }
}
