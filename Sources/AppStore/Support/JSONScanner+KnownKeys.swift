extension JSONScanner {
    /// The known keys an object has shown so far, one bit each, so a known key that comes twice is
    /// `Unexpected`.
    ///
    /// `JSONDecoder` keeps the first of two equal keys, while a scanner that assigns as it reads keeps
    /// the last; such text is left to the decoder. A bit costs nothing on the hot path, where
    /// ``readObjectWithDistinctKeys(_:)`` keeps an array of keys. Unknown keys are skipped by both
    /// readers, so they need no bit.
    package struct KnownKeys {
        private var seen: UInt64 = 0

        package init() {}

        /// Records the key numbered `bit` (0 to 63, one per key the object's reader knows).
        package mutating func mark(_ bit: Int) throws(Unexpected) {
            let mask: UInt64 = 1 << UInt64(bit)
            guard seen & mask == 0 else { throw Unexpected() }
            seen |= mask
        }
    }
}
