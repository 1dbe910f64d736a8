import Foundation

/// A parsed JOSE header plus the chain-cache key derived from it.
struct ParsedHeader: Sendable {
    /// The `alg` value.
    let alg: String?
    /// The `x5c` certificates, if present.
    let x5c: [String]?
    /// The key of `x5c[0]`/`x5c[1]` in the chain cache, when `x5c` holds at least two entries.
    let chainKey: ValidatedChainCache.Key?

    init(_ header: CompactJWS.Header) {
        self.alg = header.alg
        self.x5c = header.x5c
        if let x5c = header.x5c, x5c.count >= 2 {
            self.chainKey = ValidatedChainCache.Key(leaf: x5c[0], intermediate: x5c[1])
        } else {
            self.chainKey = nil
        }
    }
}
