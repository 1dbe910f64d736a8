import Crypto
import Hummingbird

/// Checks `Authorization: Bearer <secret>` against the configured keys and their scopes.
///
/// A missing or unknown key is 401 `unauthorized`; a known key without the scope is 403 `forbidden`.
/// Both are decided before the body is read or the store is touched.
public struct APIKeyAuthenticator: Sendable {
    /// The keys by the bytes of their SHA-256, so a request's secret is hashed and looked up without
    /// writing the digest out as hex (a measurable share of an entitlement read).
    private let keysByDigest: [[UInt8]: APIKey]

    /// Creates an authenticator for the configured keys.
    public init(keys: [APIKey]) {
        self.keysByDigest = Dictionary(
            keys.compactMap { key in Self.bytes(hex: key.sha256).map { ($0, key) } },
            uniquingKeysWith: { first, _ in first }
        )
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
        guard let key = keysByDigest[Array(SHA256.hash(data: Array(parts[1].utf8)))] else {
            throw Problem(status: .unauthorized, code: "unauthorized", title: "Unauthorized", detail: "unknown API key")
        }
        guard key.scopes.contains(scope) else {
            throw Problem(status: .forbidden, code: "forbidden", title: "Forbidden", detail: "API key \(key.name) lacks the \(scope.rawValue) scope")
        }
        return key
    }

    /// The bytes of lowercase hex text, or nil if it is not hex.
    private static func bytes(hex: String) -> [UInt8]? {
        let digits = Array(hex.utf8)
        guard digits.count.isMultiple(of: 2) else { return nil }
        func value(_ digit: UInt8) -> UInt8? {
            switch digit {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit - UInt8(ascii: "a") + 10
            default: nil
            }
        }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(digits.count / 2)
        for index in stride(from: 0, to: digits.count, by: 2) {
            guard let high = value(digits[index]), let low = value(digits[index + 1]) else { return nil }
            bytes.append(high << 4 | low)
        }
        return bytes
    }
}
