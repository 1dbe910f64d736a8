import EventStore
import Foundation
import Synchronization

/// Read models held in memory while replaying, written to the store in one swap at the end.
public final class InMemoryDocuments: LedgerDocuments {
    private struct State {
        var chains: [String: ChainDocument] = [:]
        var users: [String: UserDocument] = [:]
        var owners: [String: OwnerDocument] = [:]
    }

    private let state = Mutex(State())

    /// Creates empty read models.
    public init() {}

    public func chain(_ id: String) async throws -> ChainDocument? { state.withLock { $0.chains[id] } }
    public func putChain(_ document: ChainDocument) async throws { state.withLock { $0.chains[document.state.originalTransactionId] = document } }
    public func user(_ id: String) async throws -> UserDocument? { state.withLock { $0.users[id] } }
    public func putUser(_ document: UserDocument) async throws { state.withLock { $0.users[document.state.userId] = document } }
    public func owner(_ id: String) async throws -> OwnerDocument? { state.withLock { $0.owners[id] } }
    public func putOwner(_ document: OwnerDocument, chain id: String) async throws { state.withLock { $0.owners[id] = document } }
    public func lock(model: String, key: String) async throws {}

    /// Every document as it would be stored, sorted by model and key.
    public func documents() throws -> [ProjectionDocument] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let snapshot = state.withLock { $0 }
        var documents: [ProjectionDocument] = []
        documents.reserveCapacity(snapshot.chains.count + snapshot.users.count + snapshot.owners.count)
        for (key, value) in snapshot.chains { documents.append(ProjectionDocument(model: ReadModel.subscriptionState, key: key, data: try encoder.encode(value))) }
        for (key, value) in snapshot.users { documents.append(ProjectionDocument(model: ReadModel.userEntitlements, key: key, data: try encoder.encode(value))) }
        for (key, value) in snapshot.owners { documents.append(ProjectionDocument(model: ReadModel.chainOwner, key: key, data: try encoder.encode(value))) }
        return documents.sorted { ($0.model, $0.key) < ($1.model, $1.key) }
    }
}
