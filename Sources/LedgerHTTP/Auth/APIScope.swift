/// What an API key may do.
public enum APIScope: String, Sendable, Hashable, CaseIterable, Codable {
    /// Read entitlements, subscriptions and events.
    case read
    /// Submit transactions and receipts for users.
    case ingest
    /// Operator actions: manual grants.
    case admin
}
