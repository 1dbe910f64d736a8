/// Writes JSON text the way `JSONEncoder` does, for what is encoded on every request: read-model
/// documents (a chain's grows with its renewals) and the entitlement view.
///
/// Callers write keys in the order they want (sorted, for documents, as `.sortedKeys` does) and choose
/// per field whether nil is left out (`field`, like `encodeIfPresent`) or written (`nullable`); a
/// test checks documents byte for byte against `JSONEncoder`.
public struct JSONWriter: Sendable {
    /// The text written so far.
    public private(set) var bytes: [UInt8] = []
    private var needsComma = false
    /// Whether `/` is written `\/`, as `JSONEncoder` does by default (stored documents and events
    /// keep that spelling); answers leave it plain, as `.withoutEscapingSlashes` does.
    private let escapesSlashes: Bool

    /// Creates a writer with room for `capacity` bytes.
    public init(capacity: Int = 1024, escapingSlashes: Bool = true) {
        bytes.reserveCapacity(capacity)
        escapesSlashes = escapingSlashes
    }

    public mutating func beginObject() {
        separate()
        bytes.append(UInt8(ascii: "{"))
        needsComma = false
    }

    public mutating func endObject() {
        bytes.append(UInt8(ascii: "}"))
        needsComma = true
    }

    /// Writes `"key":`; the value written next belongs to it.
    public mutating func key(_ name: String) {
        separate()
        writeString(name)
        bytes.append(UInt8(ascii: ":"))
        needsComma = false
    }

    public mutating func string(_ value: String) {
        separate()
        writeString(value)
        needsComma = true
    }

    public mutating func int(_ value: Int64) {
        separate()
        bytes.append(contentsOf: String(value).utf8)
        needsComma = true
    }

    public mutating func bool(_ value: Bool) {
        separate()
        bytes.append(contentsOf: (value ? "true" : "false").utf8)
        needsComma = true
    }

    /// `"key":value` for a present value; nothing for nil, like `encodeIfPresent`.
    public mutating func field(_ name: String, _ value: String?) {
        guard let value else { return }
        key(name)
        string(value)
    }

    public mutating func field(_ name: String, _ value: Int64?) {
        guard let value else { return }
        key(name)
        int(value)
    }

    public mutating func field(_ name: String, _ value: Int?) {
        field(name, value.map(Int64.init))
    }

    public mutating func field(_ name: String, _ value: Bool?) {
        guard let value else { return }
        key(name)
        bool(value)
    }

    public mutating func beginArray() {
        separate()
        bytes.append(UInt8(ascii: "["))
        needsComma = false
    }

    public mutating func endArray() {
        bytes.append(UInt8(ascii: "]"))
        needsComma = true
    }

    public mutating func null() {
        separate()
        bytes.append(contentsOf: "null".utf8)
        needsComma = true
    }

    /// `"key":value`, or `"key":null` for nil: for API bodies whose clients expect every key.
    public mutating func nullable(_ name: String, _ value: String?) {
        key(name)
        if let value { string(value) } else { null() }
    }

    public mutating func nullable(_ name: String, _ value: Int?) {
        key(name)
        if let value { int(Int64(value)) } else { null() }
    }

    private mutating func separate() {
        if needsComma { bytes.append(UInt8(ascii: ",")) }
    }

    /// A quoted string with JSONEncoder's escapes: `"`, `\`, `/` and control characters.
    ///
    /// The bytes between two characters that need escaping go in with one copy, not one append per
    /// byte: ids and dates are a single copy, and a long raw payload with a few quotes a handful.
    private mutating func writeString(_ value: String) {
        bytes.append(UInt8(ascii: "\""))
        var value = value
        value.withUTF8 { utf8 in
            var runStart = 0
            var index = 0
            while let found = Self.firstEscape(in: utf8, from: index) {
                if !escapesSlashes, utf8[found] == UInt8(ascii: "/") {
                    // Part of the run, copied with it.
                    index = found + 1
                    continue
                }
                if runStart < found { bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart..<found])) }
                writeEscape(for: utf8[found])
                runStart = found + 1
                index = found + 1
            }
            if runStart < utf8.count { bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart...])) }
        }
        bytes.append(UInt8(ascii: "\""))
    }

    private static func needsEscape(_ byte: UInt8) -> Bool {
        byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") || byte == UInt8(ascii: "/")
    }

    /// The index of the first byte at or after `start` that needs an escape, or nil.
    ///
    /// Eight bytes at a time: a fact's raw payload is kilobytes of base64 with a few quotes, and a
    /// byte-by-byte scan of it was most of the cost of writing the fact.
    private static func firstEscape(in utf8: UnsafeBufferPointer<UInt8>, from start: Int) -> Int? {
        guard let base = UnsafeRawPointer(utf8.baseAddress) else { return nil }
        var index = start
        while index + 8 <= utf8.count {
            let word = UInt64(littleEndian: base.loadUnaligned(fromByteOffset: index, as: UInt64.self))
            if mayNeedEscape(word) {
                for candidate in index..<(index + 8) where needsEscape(utf8[candidate]) { return candidate }
            }
            index += 8
        }
        while index < utf8.count {
            if needsEscape(utf8[index]) { return index }
            index += 1
        }
        return nil
    }

    /// Whether any byte of `word` may need an escape: a control character, `"`, `\` or `/`. Never
    /// false when one does; it may be true for a word with none (some bytes of 0x80 or more), and the
    /// byte scan then decides.
    private static func mayNeedEscape(_ word: UInt64) -> Bool {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highs: UInt64 = 0x8080_8080_8080_8080
        func hasZeroByte(_ value: UInt64) -> Bool { (value &- ones) & ~value & highs != 0 }
        let control = (word &- ones &* 0x20) & highs != 0
        return control
            || hasZeroByte(word ^ (ones &* UInt64(UInt8(ascii: "\""))))
            || hasZeroByte(word ^ (ones &* UInt64(UInt8(ascii: "\\"))))
            || hasZeroByte(word ^ (ones &* UInt64(UInt8(ascii: "/"))))
    }

    private mutating func writeEscape(for byte: UInt8) {
        let backslash = UInt8(ascii: "\\")
        switch byte {
        case UInt8(ascii: "\""), backslash, UInt8(ascii: "/"): bytes.append(backslash); bytes.append(byte)
        case 0x0A: bytes.append(backslash); bytes.append(UInt8(ascii: "n"))
        case 0x0D: bytes.append(backslash); bytes.append(UInt8(ascii: "r"))
        case 0x09: bytes.append(backslash); bytes.append(UInt8(ascii: "t"))
        case 0x08: bytes.append(backslash); bytes.append(UInt8(ascii: "b"))
        case 0x0C: bytes.append(backslash); bytes.append(UInt8(ascii: "f"))
        default:
            bytes.append(contentsOf: "\\u00".utf8)
            bytes.append(Self.hexDigit(byte >> 4))
            bytes.append(Self.hexDigit(byte & 0x0F))
        }
    }

    private static func hexDigit(_ nibble: UInt8) -> UInt8 {
        nibble < 10 ? UInt8(ascii: "0") + nibble : UInt8(ascii: "a") + nibble - 10
    }
}
