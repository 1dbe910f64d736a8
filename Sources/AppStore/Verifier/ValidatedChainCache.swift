import Synchronization

/// A bounded LRU of validated (leaf, intermediate) chains, shared by every verification of one verifier.
///
/// Building and checking a P-384 chain costs about ten times the ES256 signature check; App
/// Store data is signed by a handful of leaves, so after the first JWS the cost is only the
/// validity-window check and the signature. Keys are the `x5c` base64 texts of the leaf and
/// intermediate; `ChainValidator` accepts only standard, padded base64, so each DER has one key
/// and respelling a certificate cannot push the chains in use out (other genuine Apple chains,
/// few as they are, still take a place each). Eviction scans the entries, which is cheap at the
/// intended sizes (tens).
final class ValidatedChainCache: Sendable {
    /// The cache key: the two certificates as they appear in `x5c`.
    ///
    /// The hash is computed once (the key is built once per distinct header, see ``HeaderMemo``),
    /// so a lookup costs one dictionary probe and a string comparison, not hashing 2 KB of text.
    struct Key: Hashable, Sendable {
        let leaf: String
        let intermediate: String
        private let hash: Int

        init(leaf: String, intermediate: String) {
            self.leaf = leaf
            self.intermediate = intermediate
            var hasher = Hasher()
            hasher.combine(leaf)
            hasher.combine(intermediate)
            self.hash = hasher.finalize()
        }

        func hash(into hasher: inout Hasher) {
            hasher.combine(hash)
        }

        static func == (lhs: Key, rhs: Key) -> Bool {
            lhs.hash == rhs.hash && lhs.leaf == rhs.leaf && lhs.intermediate == rhs.intermediate
        }
    }

    private struct Entry {
        var chain: ValidatedChain
        var lastUse: UInt64
    }

    private struct State: ~Copyable {
        var entries: [Key: Entry] = [:]
        var clock: UInt64 = 0
    }

    /// The maximum number of chains kept.
    let capacity: Int
    private let state = Mutex(State())

    /// Creates an empty cache holding at most `capacity` chains (at least 1).
    init(capacity: Int) {
        self.capacity = max(1, capacity)
    }

    /// Returns the chain for `key`, marking it most recently used.
    func lookup(_ key: Key) -> ValidatedChain? {
        state.withLock { state in
            state.clock &+= 1
            let now = state.clock
            guard let index = state.entries.index(forKey: key) else { return nil }
            state.entries.values[index].lastUse = now
            return state.entries.values[index].chain
        }
    }

    /// Stores a freshly validated chain, evicting the least recently used one when full.
    func insert(_ chain: ValidatedChain, for key: Key) {
        state.withLock { state in
            state.clock &+= 1
            if state.entries[key] == nil, state.entries.count >= capacity,
                let oldest = state.entries.min(by: { $0.value.lastUse < $1.value.lastUse })?.key
            {
                state.entries.removeValue(forKey: oldest)
            }
            state.entries[key] = Entry(chain: chain, lastUse: state.clock)
        }
    }

    /// The number of chains currently cached.
    var count: Int {
        state.withLock { $0.entries.count }
    }
}
