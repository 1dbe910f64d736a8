import Crypto
import EventStore
import Foundation

/// A configured API key: its name, its scopes and the SHA-256 of its secret (the secret itself is never
/// stored, so a leaked configuration file grants nothing).
public struct APIKey: Sendable, Hashable {
    public var name: String
    public var scopes: Set<APIScope>
    /// Lowercase hex SHA-256 of the secret.
    public var sha256: String

    /// Creates a key entry.
    public init(name: String, scopes: Set<APIScope>, sha256: String) {
        self.name = name
        self.scopes = scopes
        self.sha256 = sha256.lowercased()
    }

    /// Lowercase hex SHA-256 of a secret, as `subledger keys hash` prints it.
    public static func hash(secret: String) -> String {
        Hex.string(SHA256.hash(data: Data(secret.utf8)))
    }
}
