import Foundation

/// Folds one event into the read models: the same code inline (in the append's transaction) and in
/// replay, so a rebuilt read model comes out identical to the live one.
public struct LedgerProjector: Sendable {
    /// Creates a projector.
    public init() {}

    /// Applies `event` to the documents it touches.
    public func apply(_ event: ProjectableEvent, to documents: some LedgerDocuments) async throws {
        switch event.body {
        case .fact(let fact):
            for chain in fact.chains.sorted() {
                try await documents.updateChain(chain) { document in
                    document.state.apply(fact, eventID: event.eventID, stream: event.streamID)
                    document.position = max(document.position, event.position)
                }
            }
        case .link(let link):
            try await documents.lock(model: ReadModel.chainOwner, key: link.originalTransactionId)
            switch link.outcome {
            case .linked, .transferred:
                try await documents.putOwner(OwnerDocument(userId: link.userId), chain: link.originalTransactionId)
                if let previous = link.previousUserId, previous != link.userId {
                    let unlink = UserLink(userId: previous, originalTransactionId: link.originalTransactionId, source: link.source, outcome: .unlinked)
                    try await updateUser(previous, position: event.position, in: documents) { $0.apply(unlink, at: event.recordedAt) }
                }
            case .unlinked, .rejected:
                break
            }
            try await updateUser(link.userId, position: event.position, in: documents) { $0.apply(link, at: event.recordedAt) }
        case .grant(let grant):
            try await updateUser(grant.userId, position: event.position, in: documents) { $0.grant(grant) }
        case .revoke(let revoke):
            try await updateUser(revoke.userId, position: event.position, in: documents) { $0.revoke(revoke) }
        case .other:
            break
        }
    }

    private func updateUser(
        _ userId: String,
        position: Int64,
        in documents: some LedgerDocuments,
        _ change: (inout UserState) -> Void
    ) async throws {
        try await documents.updateUser(userId) { document in
            change(&document.state)
            document.position = max(document.position, position)
        }
    }
}
