import EventStore

/// Decodes the percent escapes of a path segment into UTF-8 text, byte for byte.
///
/// Foundation's `removingPercentEncoding` goes through CFString, which drops a leading U+FEFF (a byte
/// order mark to it): `/v1/users/%EF%BB%BFbom` was read as user `bom`, so a user whose id a body gave
/// with that character could not be read by path, and a grant went to another user.
enum PercentDecoding {
    /// The text `segment` spells, or nil when an escape is not `%` and two hexadecimal digits or the
    /// bytes are not UTF-8.
    static func decode(_ segment: some StringProtocol) -> String? {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(segment.utf8.count)
        var iterator = segment.utf8.makeIterator()
        while let byte = iterator.next() {
            guard byte == UInt8(ascii: "%") else {
                bytes.append(byte)
                continue
            }
            guard let high = iterator.next().flatMap(Hex.digitValue), let low = iterator.next().flatMap(Hex.digitValue) else { return nil }
            bytes.append(high << 4 | low)
        }
        return String(validating: bytes, as: UTF8.self)
    }
}
