import Foundation

extension ResponseBodyV2 {
    /// Reads the body Apple sends, `{"signedPayload":"<JWS>"}` (whitespace allowed around its tokens),
    /// without `JSONDecoder`, which spent more time on this one 8 KB string than on the decoded
    /// payload inside it. Nil for any other shape (more keys, escapes, characters a compact JWS cannot
    /// hold): decode those with `JSONDecoder`, which gives the same answer for the bodies read here.
    static func plainSignedPayload(in body: Data) -> String? {
        body.withUnsafeBytes { raw -> String? in
            Self.compactJWSBytes.withUnsafeBufferPointer { isJWSByte -> String? in
                var reader = Reader(bytes: raw.bindMemory(to: UInt8.self))
                guard reader.expect("{"), reader.expect("\"signedPayload\""), reader.expect(":"), reader.expect("\"") else {
                    return nil
                }
                let bytes = reader.bytes
                let start = reader.index
                var end = start
                while end < bytes.count, isJWSByte[Int(bytes[end])] != 0 { end += 1 }
                // The closing quote must follow at once: whitespace there is inside the string.
                guard end < bytes.count, bytes[end] == UInt8(ascii: "\"") else { return nil }
                reader.index = end + 1
                guard reader.expect("}"), reader.atEnd() else { return nil }
                return String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<end]), as: UTF8.self)
            }
        }
    }

    /// A cursor over the body that skips JSON whitespace before each token.
    private struct Reader {
        let bytes: UnsafeBufferPointer<UInt8>
        var index = 0

        init(bytes: UnsafeBufferPointer<UInt8>) {
            self.bytes = bytes
        }

        /// Skips whitespace, then consumes `literal` if it comes next.
        mutating func expect(_ literal: StaticString) -> Bool {
            skipWhitespace()
            let count = literal.utf8CodeUnitCount
            guard bytes.count - index >= count else { return false }
            for offset in 0..<count where bytes[index + offset] != literal.utf8Start[offset] { return false }
            index += count
            return true
        }

        /// Skips whitespace; true if nothing else is left.
        mutating func atEnd() -> Bool {
            skipWhitespace()
            return index == bytes.count
        }

        /// JSON's whitespace: space, tab, line feed, carriage return.
        private mutating func skipWhitespace() {
            while index < bytes.count, bytes[index] == 0x20 || bytes[index] == 0x09 || bytes[index] == 0x0A || bytes[index] == 0x0D {
                index += 1
            }
        }
    }

    /// 1 for the bytes of a compact JWS: base64url (with `=` tolerated) and the dots between its parts.
    private static let compactJWSBytes: [UInt8] = (0...255).map { value -> UInt8 in
        switch UInt8(value) {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
             UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "."), UInt8(ascii: "="):
            1
        default:
            0
        }
    }
}
