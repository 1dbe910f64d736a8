import Crypto
import Hummingbird

/// Checks `Authorization: Bearer <secret>` against the configured keys and their scopes.
///
/// A missing or unknown key is 401 `unauthorized`; a known key without the scope is 403 `forbidden`.
/// Both are decided before the body is read or the store is touched.
public struct APIKeyAuthenticator: Sendable {
    /// A SHA-256 digest as four words: a dictionary key that needs no allocation to make or hash.
    private struct DigestKey: Hashable {
        private var words: (UInt64, UInt64, UInt64, UInt64)

        /// The digest in `bytes`, or nil if they are not 32 bytes.
        init?(_ bytes: UnsafeRawBufferPointer) {
            guard bytes.count == 32 else { return nil }
            words = (
                bytes.loadUnaligned(fromByteOffset: 0, as: UInt64.self), bytes.loadUnaligned(fromByteOffset: 8, as: UInt64.self),
                bytes.loadUnaligned(fromByteOffset: 16, as: UInt64.self), bytes.loadUnaligned(fromByteOffset: 24, as: UInt64.self)
            )
        }

        static func == (lhs: Self, rhs: Self) -> Bool {
            lhs.words == rhs.words
        }

        func hash(into hasher: inout Hasher) {
            hasher.combine(words.0)
            hasher.combine(words.1)
            hasher.combine(words.2)
            hasher.combine(words.3)
        }
    }

    /// The keys by their SHA-256, so a request's secret is hashed and looked up without writing the
    /// digest out as hex or copying it into an array (a measurable share of an entitlement read).
    private let keysByDigest: [DigestKey: APIKey]

    /// Creates an authenticator for the configured keys. The configuration refuses two keys of one
    /// hash; were there two, a secret would be the first.
    public init(keys: [APIKey]) {
        self.keysByDigest = Dictionary(
            keys.compactMap { key in Self.bytes(hex: key.sha256).flatMap { $0.withUnsafeBytes(DigestKey.init) }.map { ($0, key) } },
            uniquingKeysWith: { first, _ in first }
        )
    }

    /// The key presented by the request, if it has `scope`; throws the problem to answer otherwise.
    @discardableResult
    public func require(_ scope: APIScope, _ request: Request) throws -> APIKey {
        guard let header = request.headers[.authorization] else {
            throw Problem(status: .unauthorized, code: "unauthorized", title: "Unauthorized", detail: "send Authorization: Bearer <API key>")
        }
        guard let secret = Self.bearerSecret(header) else {
            throw Self.unauthorized(request, otherwise: "the Authorization header must be Bearer <API key>")
        }
        // Hashing first makes the lookup independent of how much of the secret matched.
        guard let key = Self.sha256(secret).withUnsafeBytes(DigestKey.init).flatMap({ keysByDigest[$0] }) else {
            throw Self.unauthorized(request, otherwise: "unknown API key")
        }
        guard key.scopes.contains(scope) else {
            throw Problem(status: .forbidden, code: "forbidden", title: "Forbidden", detail: "API key \(key.name) lacks the \(scope.rawValue) scope")
        }
        return key
    }

    /// A 401 saying `detail`, unless the request gave Authorization more than once: its values then
    /// arrive joined by a comma, which no key matches, and "unknown API key" would mislead.
    private static func unauthorized(_ request: Request, otherwise detail: String) -> Problem {
        let repeated = request.headers[values: .authorization].count > 1
        return Problem(
            status: .unauthorized, code: "unauthorized", title: "Unauthorized",
            detail: repeated ? "the Authorization header is given more than once; send it once, as Bearer <API key>" : detail
        )
    }

    /// The secret of `Bearer <secret>` (the scheme in any case, then one or more spaces, as RFC 9110
    /// allows), or nil if the header is not that.
    static func bearerSecret(_ header: String) -> Substring? {
        let utf8 = header.utf8
        guard let space = utf8.firstIndex(of: UInt8(ascii: " ")) else { return nil }
        let scheme = utf8[..<space]
        // `| 0x20` lowercases an ASCII letter, and makes a lowercase letter of no other byte.
        guard scheme.count == 6, zip(scheme, "bearer".utf8).allSatisfy({ $0 | 0x20 == $1 }) else { return nil }
        guard let start = utf8[space...].firstIndex(where: { $0 != UInt8(ascii: " ") }) else { return nil }
        return header[start...]
    }

    /// The SHA-256 of the secret's UTF-8, hashed where it lies when the string is contiguous (it is,
    /// as HTTP parsing makes it).
    private static func sha256(_ secret: Substring) -> SHA256.Digest {
        var hasher = SHA256()
        if secret.utf8.withContiguousStorageIfAvailable({ hasher.update(bufferPointer: UnsafeRawBufferPointer($0)) }) == nil {
            hasher.update(data: Array(secret.utf8))
        }
        return hasher.finalize()
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
