import Hummingbird

/// Checks `Authorization: Bearer <secret>` against the configured keys and their scopes.
///
/// A missing or unknown key is 401 `unauthorized`; a known key without the scope is 403 `forbidden`.
/// Both are decided before the body is read or the store is touched.
public struct APIKeyAuthenticator: Sendable {
    private let keysByHash: [String: APIKey]

    /// Creates an authenticator for the configured keys.
    public init(keys: [APIKey]) {
        self.keysByHash = Dictionary(keys.map { ($0.sha256, $0) }, uniquingKeysWith: { first, _ in first })
    }

    /// The key presented by the request, if it has `scope`; throws the problem to answer otherwise.
    @discardableResult
    public func require(_ scope: APIScope, _ request: Request) throws -> APIKey {
        guard let header = request.headers[.authorization] else {
            throw Problem(status: .unauthorized, code: "unauthorized", title: "Unauthorized", detail: "send Authorization: Bearer <API key>")
        }
        let parts = header.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, parts[0].lowercased() == "bearer", !parts[1].isEmpty else {
            throw Problem(status: .unauthorized, code: "unauthorized", title: "Unauthorized", detail: "the Authorization header must be Bearer <API key>")
        }
        // Hashing first makes the lookup independent of how much of the secret matched.
        guard let key = keysByHash[APIKey.hash(secret: String(parts[1]))] else {
            throw Problem(status: .unauthorized, code: "unauthorized", title: "Unauthorized", detail: "unknown API key")
        }
        guard key.scopes.contains(scope) else {
            throw Problem(status: .forbidden, code: "forbidden", title: "Forbidden", detail: "API key \(key.name) lacks the \(scope.rawValue) scope")
        }
        return key
    }
}
