/// A strict, allocation-light base64 decoder for both alphabets (`+/` and `-_`), padding optional.
///
/// JWS segments are base64url without padding and `x5c` entries are standard base64 with padding;
/// Foundation's decoder handles only the latter, and converting one into the other costs a copy on
/// the hot path. Works on raw UTF-8 bytes. Whitespace and any other byte are rejected (`nil`).
enum Base64 {
    /// Maps an ASCII byte to its 6-bit value, or 0xFF when it is not a base64 digit of either alphabet.
    private static let table: [UInt8] = {
        var table = [UInt8](repeating: 0xFF, count: 256)
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789".utf8)
        for (index, byte) in alphabet.enumerated() {
            table[Int(byte)] = UInt8(index)
        }
        table[Int(UInt8(ascii: "+"))] = 62
        table[Int(UInt8(ascii: "-"))] = 62
        table[Int(UInt8(ascii: "/"))] = 63
        table[Int(UInt8(ascii: "_"))] = 63
        return table
    }()

    /// Decodes UTF-8 `text`, returning `nil` for any invalid character, misplaced padding or impossible length.
    static func decode(_ text: UnsafeBufferPointer<UInt8>) -> [UInt8]? {
        var count = text.count
        var padding = 0
        while count > 0, padding < 2, text[count - 1] == UInt8(ascii: "=") {
            count -= 1
            padding += 1
        }
        if count % 4 == 1 { return nil }
        if padding > 0, (count + padding) % 4 != 0 { return nil }
        let outputCount = count / 4 * 3 + max(0, count % 4 - 1)
        var valid = true
        let output = [UInt8](unsafeUninitializedCapacity: outputCount) { buffer, initialized in
            Self.table.withUnsafeBufferPointer { table in
                var input = 0
                var out = 0
                // Whole quanta: 4 digits -> 3 bytes.
                while input + 4 <= count {
                    let a = table[Int(text[input])], b = table[Int(text[input + 1])]
                    let c = table[Int(text[input + 2])], d = table[Int(text[input + 3])]
                    if (a | b | c | d) & 0xC0 != 0 {
                        valid = false
                        return
                    }
                    let value = UInt32(a) << 18 | UInt32(b) << 12 | UInt32(c) << 6 | UInt32(d)
                    buffer[out] = UInt8(truncatingIfNeeded: value >> 16)
                    buffer[out + 1] = UInt8(truncatingIfNeeded: value >> 8)
                    buffer[out + 2] = UInt8(truncatingIfNeeded: value)
                    input += 4
                    out += 3
                }
                // Tail of 2 or 3 digits; unused low bits must be zero so every byte string has one encoding.
                let rest = count - input
                if rest >= 2 {
                    let a = table[Int(text[input])], b = table[Int(text[input + 1])]
                    let c = rest == 3 ? table[Int(text[input + 2])] : 0
                    if (a | b | c) & 0xC0 != 0 {
                        valid = false
                        return
                    }
                    let value = UInt32(a) << 18 | UInt32(b) << 12 | UInt32(c) << 6
                    buffer[out] = UInt8(truncatingIfNeeded: value >> 16)
                    out += 1
                    if rest == 3 {
                        buffer[out] = UInt8(truncatingIfNeeded: value >> 8)
                        out += 1
                        if value & 0xFF != 0 { valid = false }
                    } else if value & 0xFFFF != 0 {
                        valid = false
                    }
                }
                initialized = out
            }
            if !valid { initialized = 0 }
        }
        return valid ? output : nil
    }

    /// Decodes a `String`.
    static func decode(_ text: String) -> [UInt8]? {
        var text = text
        return text.withUTF8 { decode($0) }
    }

    /// Whether `text` is spelled as standard base64 with its padding (`+/`, a length divisible by
    /// four), the one spelling RFC 7515 gives `x5c` entries. With ``decode(_:)-(String)``'s check
    /// of the unused bits, each DER then has exactly one accepted text.
    static func isPaddedStandard(_ text: String) -> Bool {
        let bytes = text.utf8
        guard bytes.count % 4 == 0 else { return false }
        var padding = 0
        for byte in bytes {
            if byte == UInt8(ascii: "=") {
                padding += 1
            } else if padding > 0 || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_") {
                return false
            }
        }
        return padding <= 2
    }

    /// The offset of the first byte of `text` that is neither a digit of either alphabet nor `=`,
    /// or nil: what an answer points at when ``decode(_:)-(UnsafeBufferPointer<UInt8>)`` refuses a text.
    static func firstForeignByte(in text: UnsafeBufferPointer<UInt8>) -> Int? {
        text.firstIndex { table[Int($0)] == 0xFF && $0 != UInt8(ascii: "=") }
    }
}
