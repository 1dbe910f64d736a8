import Foundation

extension UUID {
    /// The canonical lowercase text (`8-4-4-4-12` hex digits), as event ids appear in the API and the
    /// read models. `uuidString.lowercased()` builds and case-maps two strings; a replay did that for
    /// every one of its million events.
    public var lowercaseString: String {
        let digits: StaticString = "0123456789abcdef"
        return withUnsafeBytes(of: uuid) { bytes in
            String(unsafeUninitializedCapacity: 36) { text in
                var out = 0
                for (offset, byte) in bytes.enumerated() {
                    if offset == 4 || offset == 6 || offset == 8 || offset == 10 {
                        text[out] = UInt8(ascii: "-")
                        out += 1
                    }
                    text[out] = digits.utf8Start[Int(byte >> 4)]
                    text[out + 1] = digits.utf8Start[Int(byte & 0x0F)]
                    out += 2
                }
                return out
            }
        }
    }
}
