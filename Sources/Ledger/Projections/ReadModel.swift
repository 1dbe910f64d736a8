/// The read models the ledger keeps, as `(model, key)` documents in the event store.
public enum ReadModel {
    /// `ChainDocument` by original transaction id.
    public static let subscriptionState = "subscription_state"
    /// `UserDocument` by user id.
    public static let userEntitlements = "user_entitlements"
    /// `OwnerDocument` by original transaction id: who owns the chain now.
    public static let chainOwner = "chain_owner"
}

/// A chain's fold state and the highest event position folded into it.
public struct ChainDocument: Codable, Hashable, Sendable {
    public var state: ChainState
    public var position: Int64
}

/// A user's fold state and the highest event position folded into it.
public struct UserDocument: Codable, Hashable, Sendable {
    public var state: UserState
    public var position: Int64
}

/// Who owns a chain now.
public struct OwnerDocument: Codable, Hashable, Sendable {
    public var userId: String
}
