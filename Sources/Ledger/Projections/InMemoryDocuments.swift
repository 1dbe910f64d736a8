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

    public func putOwner(_ document: OwnerDocument, chain id: String) async throws { state.withLock { $0.owners[id] = document } }
    public func lock(model: String, key: String) async throws {}

    // In place: reading a copy out and putting it back copied each chain's dictionaries per event.
    public func updateChain(_ id: String, _ change: (inout ChainDocument) -> Void) async throws {
        state.withLock { state in
            change(&state.chains[id, default: ChainDocument(state: ChainState(originalTransactionId: id), position: 0)])
        }
    }

    public func updateUser(_ id: String, _ change: (inout UserDocument) -> Void) async throws {
        state.withLock { state in
            change(&state.users[id, default: UserDocument(state: UserState(userId: id), position: 0)])
        }
    }

    /// Every document as it would be stored, sorted by model and key. Encoding is a good part of a
    /// replay's time (chains grow with their renewals), so it runs in parallel slices.
    public func documents() async throws -> [ProjectionDocument] {
        let snapshot = state.withLock { $0 }
        var pending: [(model: String, key: String, encode: @Sendable (JSONEncoder) throws -> Data)] = []
        pending.reserveCapacity(snapshot.chains.count + snapshot.users.count + snapshot.owners.count)
        for (key, value) in snapshot.chains { pending.append((ReadModel.subscriptionState, key, { _ in value.encodedJSON() })) }
        for (key, value) in snapshot.users { pending.append((ReadModel.userEntitlements, key, { try value.encodedJSON(fallback: $0) })) }
        for (key, value) in snapshot.owners { pending.append((ReadModel.chainOwner, key, { _ in value.encodedJSON() })) }
        let slices = max(1, min(ProcessInfo.processInfo.activeProcessorCount, pending.count / 256))
        let size = (pending.count + slices - 1) / slices
        let documents = try await withThrowingTaskGroup(of: [ProjectionDocument].self) { group in
            for slice in 0..<slices {
                let part = Array(pending[min(slice * size, pending.count)..<min((slice + 1) * size, pending.count)])
                group.addTask {
                    let encoder = JSONEncoder()
                    encoder.outputFormatting = [.sortedKeys]
                    return try part.map { ProjectionDocument(model: $0.model, key: $0.key, data: try $0.encode(encoder)) }
                }
            }
            var documents: [ProjectionDocument] = []
            documents.reserveCapacity(pending.count)
            for try await part in group { documents += part }
            return documents
        }
        return documents.sorted { ($0.model, $0.key) < ($1.model, $1.key) }
    }
}
