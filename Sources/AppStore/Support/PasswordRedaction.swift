import Foundation

/// The byte scan behind ``NotificationV1/redactingPassword(in:)``: reads the text string by string,
/// and after every key that spells `password` (in any letter case, plainly or with escapes, at any
/// depth, however often) replaces the value with a placeholder string, copying every other byte.
///
/// It reads any UTF-8 text, JSON or not, so a refused body is redacted too. A value that is not a
/// string (a number, an object) is replaced whole.
enum PasswordRedaction {
    private static let key = Array(#""password""#.utf8)
    private static let quote = UInt8(ascii: "\"")
    private static let backslash = UInt8(ascii: "\\")

    /// `bytes` with the value of every `password` key replaced by `placeholder`, as a JSON string.
    static func rewrite(_ bytes: [UInt8], placeholder: String) -> [UInt8] {
        let replacement = Array("\"\(placeholder)\"".utf8)
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count)
        var index = 0
        while index < bytes.count {
            guard bytes[index] == quote else {
                output.append(bytes[index])
                index += 1
                continue
            }
            // A whole string, so nothing inside one is ever taken for a key.
            let end = endOfString(bytes, from: index)
            let token = bytes[index..<end]
            output.append(contentsOf: token)
            index = end
            let colon = skipWhitespace(bytes, from: end)
            guard colon < bytes.count, bytes[colon] == UInt8(ascii: ":"), isPasswordKey(token) else { continue }
            let value = skipWhitespace(bytes, from: colon + 1)
            output.append(contentsOf: bytes[end..<value])
            output.append(contentsOf: replacement)
            index = endOfValue(bytes, from: value)
        }
        return output
    }

    /// Whether a quoted key spells `password` in any letter case (`"Password"` too: a hand-written
    /// or re-serialised body may not keep Apple's spelling), with escapes (`"p\u0061ssword"`) decoded.
    private static func isPasswordKey(_ token: ArraySlice<UInt8>) -> Bool {
        if token.count == key.count, zip(token, key).allSatisfy({ asciiLowercased($0) == $1 }) { return true }
        guard token.contains(backslash) else { return false }
        let decoded = try? JSONSerialization.jsonObject(with: Data(token), options: .fragmentsAllowed)
        return (decoded as? String)?.lowercased() == "password"
    }

    static func asciiLowercased(_ byte: UInt8) -> UInt8 {
        (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) ? byte + 32 : byte
    }

    private static func skipWhitespace(_ bytes: [UInt8], from start: Int) -> Int {
        var index = start
        while index < bytes.count, isWhitespace(bytes[index]) { index += 1 }
        return index
    }

    private static func isWhitespace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09
    }

    /// Where the value starting at `start` ends: after a string's closing quote, after the bracket
    /// that closes an object or array, else at the next comma, closing bracket or whitespace.
    private static func endOfValue(_ bytes: [UInt8], from start: Int) -> Int {
        var index = start
        var depth = 0
        while index < bytes.count {
            let byte = bytes[index]
            if byte == quote {
                index = endOfString(bytes, from: index)
                if depth == 0 { return index }
                continue
            }
            switch byte {
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                depth += 1
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                if depth == 0 { return index }
                depth -= 1
                if depth == 0 { return index + 1 }
            case UInt8(ascii: ","):
                if depth == 0 { return index }
            default:
                if depth == 0 && isWhitespace(byte) { return index }
            }
            index += 1
        }
        return bytes.count
    }

    /// The index after the closing quote of the string whose opening quote is at `start` (the end of
    /// the text if it never closes).
    private static func endOfString(_ bytes: [UInt8], from start: Int) -> Int {
        var index = start + 1
        while index < bytes.count {
            if bytes[index] == backslash {
                index += 2
            } else if bytes[index] == quote {
                return index + 1
            } else {
                index += 1
            }
        }
        return bytes.count
    }
}
