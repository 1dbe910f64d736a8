import Foundation

/// Folds one event into the read models: the same code inline (in the append's transaction) and in
/// replay, so a rebuilt read model comes out identical to the live one.
public struct LedgerProjector: Sendable {
    private let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return encoder
    }()
    private let decoder = JSONDecoder()

    /// Creates a projector.
    public init() {}

    /// Applies `event` to the documents it touches.
    public func apply(_ event: ProjectableEvent, to documents: some DocumentAccess) async throws {
        switch event.body {
        case .fact(let fact):
            let chains = Set(fact.transactions.map(\.originalTransactionId) + fact.renewals.map(\.originalTransactionId))
            for chain in chains.sorted() {
                try await documents.lock(model: ReadModel.subscriptionState, key: chain)
                var document = try await load(ChainDocument.self, ReadModel.subscriptionState, chain, from: documents)
                    ?? ChainDocument(state: ChainState(originalTransactionId: chain), position: 0)
                document.state.apply(fact, eventID: event.eventID)
                document.position = max(document.position, event.position)
                try await store(document, ReadModel.subscriptionState, chain, in: documents)
            }
        case .link(let link):
            try await documents.lock(model: ReadModel.chainOwner, key: link.originalTransactionId)
            switch link.outcome {
            case .linked, .transferred:
                try await store(OwnerDocument(userId: link.userId), ReadModel.chainOwner, link.originalTransactionId, in: documents)
                if let previous = link.previousUserId, previous != link.userId {
                    try await updateUser(previous, position: event.position, in: documents) {
                        $0.apply(UserLink(userId: previous, originalTransactionId: link.originalTransactionId, source: link.source, outcome: .unlinked), at: event.recordedAt)
                    }
                }
            case .unlinked, .rejected:
                break
            }
            try await updateUser(link.userId, position: event.position, in: documents) {
                $0.apply(link, at: event.recordedAt)
            }
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
        in documents: some DocumentAccess,
        _ change: (inout UserState) -> Void
    ) async throws {
        try await documents.lock(model: ReadModel.userEntitlements, key: userId)
        var document = try await load(UserDocument.self, ReadModel.userEntitlements, userId, from: documents)
            ?? UserDocument(state: UserState(userId: userId), position: 0)
        change(&document.state)
        document.position = max(document.position, position)
        try await store(document, ReadModel.userEntitlements, userId, in: documents)
    }

    func load<T: Decodable>(_ type: T.Type, _ model: String, _ key: String, from documents: some DocumentAccess) async throws -> T? {
        guard let data = try await documents.document(model: model, key: key) else { return nil }
        return try decoder.decode(T.self, from: data)
    }

    func store<T: Encodable>(_ value: T, _ model: String, _ key: String, in documents: some DocumentAccess) async throws {
        try await documents.putDocument(model: model, key: key, data: try encoder.encode(value))
    }
}
