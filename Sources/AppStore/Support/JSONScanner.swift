/// A forward-only reader of JSON text for the bodies decoded on hot paths: Apple's JWS payloads on
/// ingest, and the ledger's stored facts and documents in replays and reads.
///
/// Foundation's `JSONDecoder` spent more than half of a replay's CPU on one fact type, and about a
/// third of verifying a notification. This scanner reads the same text with no intermediate tree and
/// no `Codable` boxes. It is strict and small: whatever it does not expect (a fraction where an
/// integer belongs, an escaped key, nesting deeper than ``maximumDepth``) throws
/// `JSONScanner.Unexpected`, and callers then decode with `JSONDecoder`, which stays the reference.
/// Text it accepts is valid JSON, values it skips included, so a fast path never accepts what
/// `JSONDecoder` would refuse. Shared by the package's targets, not part of the public API.
package struct JSONScanner {
    /// The text is not in the shape the fast path reads; decode it with `JSONDecoder` instead.
    package struct Unexpected: Error {
        package init() {}
    }

    /// Objects and arrays nested deeper than this are left to `JSONDecoder`: payloads are read before
    /// their signature is checked, and skipping recurses.
    package static let maximumDepth = 32

    /// Objects read by ``readObjectWithDistinctKeys(_:)`` with more keys than this are left to
    /// `JSONDecoder` (Apple's largest payload has about 30).
    package static let maximumDistinctKeys = 64

    private let bytes: UnsafeRawBufferPointer
    private var index = 0
    private var depth = 0

    package init(_ bytes: UnsafeRawBufferPointer) {
        self.bytes = bytes
    }

    // MARK: Structure

    private mutating func skipWhitespace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x0A, 0x0D, 0x09: index += 1
            default: return
            }
        }
    }

    private mutating func peek() throws(Unexpected) -> UInt8 {
        skipWhitespace()
        guard index < bytes.count else { throw Unexpected() }
        return bytes[index]
    }

    private mutating func expect(_ byte: UInt8) throws(Unexpected) {
        guard try peek() == byte else { throw Unexpected() }
        index += 1
    }

    /// Calls `field` with each key of an object; `field` must read or skip the value.
    package mutating func readObject(_ field: (inout JSONScanner, Key) throws(Unexpected) -> Void) throws(Unexpected) {
        try expect(UInt8(ascii: "{"))
        if try peek() == UInt8(ascii: "}") {
            index += 1
            return
        }
        try enter()
        defer { depth -= 1 }
        while true {
            let key = try readKey()
            try expect(UInt8(ascii: ":"))
            try field(&self, key)
            switch try peek() {
            case UInt8(ascii: ","): index += 1
            case UInt8(ascii: "}"): index += 1; return
            default: throw Unexpected()
            }
        }
    }

    /// As ``readObject(_:)``, but a key that comes twice, or more than ``maximumDistinctKeys`` keys, is
    /// `Unexpected`. `JSONDecoder` keeps the first of two equal keys; rather than copy that rule, such
    /// text is left to it. The bound keeps the pairwise check cheap on untrusted input.
    package mutating func readObjectWithDistinctKeys(_ field: (inout JSONScanner, Key) throws(Unexpected) -> Void) throws(Unexpected) {
        var keys: [Key] = []
        try readObject { scanner, key throws(Unexpected) in
            guard keys.count < Self.maximumDistinctKeys, !keys.contains(key) else { throw Unexpected() }
            keys.append(key)
            try field(&scanner, key)
        }
    }

    /// Calls `element` for each element of an array; `element` must read the value.
    package mutating func readArray(_ element: (inout JSONScanner) throws(Unexpected) -> Void) throws(Unexpected) {
        try expect(UInt8(ascii: "["))
        if try peek() == UInt8(ascii: "]") {
            index += 1
            return
        }
        try enter()
        defer { depth -= 1 }
        while true {
            try element(&self)
            switch try peek() {
            case UInt8(ascii: ","): index += 1
            case UInt8(ascii: "]"): index += 1; return
            default: throw Unexpected()
            }
        }
    }

    private mutating func enter() throws(Unexpected) {
        guard depth < Self.maximumDepth else { throw Unexpected() }
        depth += 1
    }

    /// Requires that nothing but white space follows the value just read.
    package mutating func finish() throws(Unexpected) {
        skipWhitespace()
        guard index == bytes.count else { throw Unexpected() }
    }

    /// True, and consumed, if the next value is `null`.
    package mutating func readNull() throws(Unexpected) -> Bool {
        guard try peek() == UInt8(ascii: "n") else { return false }
        try literal("null")
        return true
    }

    private mutating func literal(_ text: StaticString) throws(Unexpected) {
        let count = text.utf8CodeUnitCount
        guard index + count <= bytes.count else { throw Unexpected() }
        for offset in 0..<count where bytes[index + offset] != text.utf8Start[offset] {
            throw Unexpected()
        }
        index += count
    }

    // MARK: Values

    package mutating func readBool() throws(Unexpected) -> Bool {
        switch try peek() {
        case UInt8(ascii: "t"): try literal("true"); return true
        case UInt8(ascii: "f"): try literal("false"); return false
        default: throw Unexpected()
        }
    }

    /// An integer without fraction or exponent, as `JSONEncoder` writes `Int` and `Int64`.
    package mutating func readInt64() throws(Unexpected) -> Int64 {
        _ = try peek()
        var negative = false
        if bytes[index] == UInt8(ascii: "-") {
            negative = true
            index += 1
        }
        let start = index
        var magnitude: UInt64 = 0
        while index < bytes.count {
            let byte = bytes[index]
            guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { break }
            let (times, overflowA) = magnitude.multipliedReportingOverflow(by: 10)
            let (sum, overflowB) = times.addingReportingOverflow(UInt64(byte - UInt8(ascii: "0")))
            guard !overflowA, !overflowB else { throw Unexpected() }
            magnitude = sum
            index += 1
        }
        let digits = index - start
        guard digits > 0, digits == 1 || bytes[start] != UInt8(ascii: "0") else { throw Unexpected() }
        if index < bytes.count {
            switch bytes[index] {
            case UInt8(ascii: "."), UInt8(ascii: "e"), UInt8(ascii: "E"): throw Unexpected()
            default: break
            }
        }
        if negative {
            guard magnitude <= UInt64(Int64.max) + 1 else { throw Unexpected() }
            return magnitude == UInt64(Int64.max) + 1 ? Int64.min : -Int64(magnitude)
        }
        guard magnitude <= UInt64(Int64.max) else { throw Unexpected() }
        return Int64(magnitude)
    }

    /// An object key, left in place: keys are matched against literals, never made into strings.
    private mutating func readKey() throws(Unexpected) -> Key {
        try expect(UInt8(ascii: "\""))
        let start = index
        var ascii = true
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                let key = UnsafeRawBufferPointer(rebasing: bytes[start..<index])
                index += 1
                // JSONDecoder refuses a document whose key is not UTF-8 (an unknown key included).
                guard ascii || String(validating: key, as: UTF8.self) != nil else { throw Unexpected() }
                return Key(bytes: key)
            }
            // An escaped key is legal JSON but never written by our encoder: leave it to JSONDecoder.
            guard byte != UInt8(ascii: "\\"), byte >= 0x20 else { throw Unexpected() }
            ascii = ascii && byte < 0x80
            index += 1
        }
        throw Unexpected()
    }

    /// Skips a string without building it (a fact's raw input, when the caller does not need it).
    ///
    /// Plain ASCII is stepped over; a string with an escape or a non-ASCII byte is read in full, so
    /// skipping refuses exactly what reading refuses.
    package mutating func skipString() throws(Unexpected) {
        let start = index
        try expect(UInt8(ascii: "\""))
        skipPlainASCIIWords()
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                index += 1
                return
            }
            guard byte >= 0x20, byte < 0x80, byte != UInt8(ascii: "\\") else {
                index = start
                _ = try readString()
                return
            }
            index += 1
        }
        throw Unexpected()
    }

    /// Steps over a string's plain ASCII eight bytes at a time, stopping at the first word that holds
    /// a quote, a backslash, a control character or a non-ASCII byte (the caller reads that word
    /// byte by byte).
    private mutating func skipPlainASCIIWords() {
        guard let base = bytes.baseAddress else { return }
        while index + 8 <= bytes.count, !Self.needsAttention(base.loadUnaligned(fromByteOffset: index, as: UInt64.self)) {
            index += 8
        }
    }

    /// True if any byte of `word` is `"`, `\`, below 0x20 or above 0x7F (the usual SWAR zero-byte tests).
    private static func needsAttention(_ word: UInt64) -> Bool {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highs: UInt64 = 0x8080_8080_8080_8080
        func hasZeroByte(_ value: UInt64) -> Bool { (value &- ones) & ~value & highs != 0 }
        let nonASCII = word & highs != 0
        let control = (word &- ones &* 0x20) & ~word & highs != 0
        return nonASCII || control || hasZeroByte(word ^ (ones &* 0x22)) || hasZeroByte(word ^ (ones &* 0x5C))
    }

    /// A string; escapes are decoded, and text that is not valid UTF-8 is refused.
    package mutating func readString() throws(Unexpected) -> String {
        try expect(UInt8(ascii: "\""))
        let start = index
        // The common case: no escapes, so the bytes are the string; ASCII needs no UTF-8 validation
        // (a JWS is all ASCII, and it is most of an event's bytes).
        skipPlainASCIIWords()
        var ascii = true
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                let slice = UnsafeRawBufferPointer(rebasing: bytes[start..<index])
                index += 1
                if ascii { return String(decoding: slice, as: UTF8.self) }
                guard let text = String(validating: slice, as: UTF8.self) else { throw Unexpected() }
                return text
            }
            if byte == UInt8(ascii: "\\") { break }
            guard byte >= 0x20 else { throw Unexpected() }
            ascii = ascii && byte < 0x80
            index += 1
        }
        var buffer = Array(UnsafeRawBufferPointer(rebasing: bytes[start..<index]))
        while index < bytes.count {
            let byte = bytes[index]
            index += 1
            switch byte {
            case UInt8(ascii: "\""):
                guard let text = String(validating: buffer, as: UTF8.self) else { throw Unexpected() }
                return text
            case UInt8(ascii: "\\"):
                try readEscape(into: &buffer)
            default:
                guard byte >= 0x20 else { throw Unexpected() }
                buffer.append(byte)
            }
        }
        throw Unexpected()
    }

    private mutating func readEscape(into buffer: inout [UInt8]) throws(Unexpected) {
        guard index < bytes.count else { throw Unexpected() }
        let escape = bytes[index]
        index += 1
        switch escape {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): buffer.append(escape)
        case UInt8(ascii: "b"): buffer.append(0x08)
        case UInt8(ascii: "f"): buffer.append(0x0C)
        case UInt8(ascii: "n"): buffer.append(0x0A)
        case UInt8(ascii: "r"): buffer.append(0x0D)
        case UInt8(ascii: "t"): buffer.append(0x09)
        case UInt8(ascii: "u"):
            var scalar = UInt32(try readHex4())
            if (0xD800...0xDBFF).contains(scalar) {
                // A high surrogate must be followed by an escaped low one.
                guard index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u") else {
                    throw Unexpected()
                }
                index += 2
                let low = UInt32(try readHex4())
                guard (0xDC00...0xDFFF).contains(low) else { throw Unexpected() }
                scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
            }
            guard let unicode = Unicode.Scalar(scalar) else { throw Unexpected() }
            buffer.append(contentsOf: String(Character(unicode)).utf8)
        default:
            throw Unexpected()
        }
    }

    private mutating func readHex4() throws(Unexpected) -> UInt16 {
        guard index + 4 <= bytes.count else { throw Unexpected() }
        var value: UInt16 = 0
        for _ in 0..<4 {
            let byte = bytes[index]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: throw Unexpected()
            }
            value = value << 4 | UInt16(digit)
            index += 1
        }
        return value
    }

    /// Skips one value of any kind (for keys the fast path does not know).
    package mutating func skipValue() throws(Unexpected) {
        switch try peek() {
        case UInt8(ascii: "{"): try readObject { scanner, _ throws(Unexpected) in try scanner.skipValue() }
        case UInt8(ascii: "["): try readArray { scanner throws(Unexpected) in try scanner.skipValue() }
        case UInt8(ascii: "\""): try skipString()
        case UInt8(ascii: "t"), UInt8(ascii: "f"): _ = try readBool()
        case UInt8(ascii: "n"): _ = try readNull()
        default: try skipNumber()
        }
    }

    /// Skips a number, holding it to JSON's grammar: `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`.
    private mutating func skipNumber() throws(Unexpected) {
        if index < bytes.count, bytes[index] == UInt8(ascii: "-") { index += 1 }
        if index < bytes.count, bytes[index] == UInt8(ascii: "0") {
            index += 1
        } else {
            try skipDigits()
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            index += 1
            try skipDigits()
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
            index += 1
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") { index += 1 }
            try skipDigits()
        }
    }

    /// Skips one or more decimal digits.
    private mutating func skipDigits() throws(Unexpected) {
        let start = index
        while index < bytes.count, bytes[index] >= UInt8(ascii: "0"), bytes[index] <= UInt8(ascii: "9") { index += 1 }
        guard index > start else { throw Unexpected() }
    }

    // MARK: Optional values

    /// A string, or nil for `null`.
    package mutating func readOptionalString() throws(Unexpected) -> String? {
        try readNull() ? nil : try readString()
    }

    /// An integer, or nil for `null`.
    package mutating func readOptionalInt64() throws(Unexpected) -> Int64? {
        try readNull() ? nil : try readInt64()
    }

    /// A Boolean, or nil for `null`.
    package mutating func readOptionalBool() throws(Unexpected) -> Bool? {
        try readNull() ? nil : try readBool()
    }
}
