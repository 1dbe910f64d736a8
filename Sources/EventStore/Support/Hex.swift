import Foundation

/// Lowercase hexadecimal text of bytes (hashes, checksums, key digests), and the bytes of such text.
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

    /// The bytes of hex text (either case), or nil when it is not an even run of hex digits.
    public static func bytes(_ text: String) -> Data? {
        let digits = Array(text.utf8)
        guard digits.count % 2 == 0 else { return nil }
        var bytes = Data(capacity: digits.count / 2)
        for index in stride(from: 0, to: digits.count, by: 2) {
            guard let high = digitValue(digits[index]), let low = digitValue(digits[index + 1]) else { return nil }
            bytes.append(high << 4 | low)
        }
        return bytes
    }

    /// The value of one hex digit (either case), or nil for another byte.
    public static func digitValue(_ digit: UInt8) -> UInt8? {
        switch digit {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): digit - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): digit - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): digit - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
