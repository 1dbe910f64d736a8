/// Lowercase hexadecimal text of bytes (hashes, checksums, key digests).
///
/// `String(format: "%02x")` per byte costs microseconds on Linux, and hashes are written out on hot
/// paths (V1 and receipt dedupe keys, every event of the feed), so this builds the text directly.
public enum Hex {
    private static let digits = Array("0123456789abcdef".utf8)

    /// The lowercase hex text of `bytes`.
    public static func string(_ bytes: some Sequence<UInt8>) -> String {
        var text: [UInt8] = []
        text.reserveCapacity(64)
        for byte in bytes {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: text, as: UTF8.self)
    }
}
