/// The read models the ledger keeps, as `(model, key)` documents in the event store.
public enum ReadModel {
    /// `ChainDocument` by original transaction id.
    public static let subscriptionState = "subscription_state"
    /// `UserDocument` by user id.
    public static let userEntitlements = "user_entitlements"
    /// `OwnerDocument` by original transaction id: who owns the chain now.
    public static let chainOwner = "chain_owner"
}
