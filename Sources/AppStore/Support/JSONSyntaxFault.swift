import Foundation

/// Where a UTF-8 text stops being JSON (RFC 8259), so an answer can say more than Foundation's
/// "The given data was not valid JSON": the first fault, what was expected there, and its line and
/// column.
///
/// It keeps the decoder's limits (512 levels of nesting, valid UTF-8, paired surrogate escapes) and
/// allows a leading byte order mark, as RFC 8259 lets a parser, but not the decoder's other two
/// liberties: a comma before a closing bracket, and a field name given twice in one object (the
/// decoder keeps the first, other readers the last). A body kept as sent must read the same to
/// every reader, an auditor's included; those two faults are marked ``isBeyondFoundation``. The
/// decoder checks less in a value the model does not read, so it can fail later in a text than
/// this scan's fault; that fault is still one, and the first. A text in UTF-16 or UTF-32, which the
/// decoder converts, is not scanned. Nesting is kept on a heap stack, not in recursion.
public struct JSONSyntaxFault: Hashable, Sendable, CustomStringConvertible {
    /// The byte offset of the fault (the text's length when it ends early).
    public var offset: Int
    /// The fault's line, from 1.
    public var line: Int
    /// The fault's column in characters (Unicode scalars), from 1.
    public var column: Int
    /// What is wrong there, e.g. `expected ':' after the field name, found '"'`.
    public var problem: String
    /// Whether this, the first fault, is one Foundation's decoder lets pass (a comma before a closing
    /// bracket, a field name given twice); a later fault in the text may still be one it refuses.
    public var isBeyondFoundation = false

    /// The problem and where it is: `expected ',' or '}', found '"' (line 2, column 9)`.
    public var description: String {
        Self.wholeText.contains(problem) ? problem : "\(problem) (line \(line), column \(column))"
    }

    /// The decoder's limit on nested arrays and objects.
    public static let maximumDepth = 512

    static let empty = "it is empty"
    static let blank = "it holds only whitespace"
    /// Problems of the whole text, which have no place to point at.
    static let wholeText: Set<String> = [empty, blank]

    /// The first fault of a whole body before it is accepted, in whatever encoding the decoder read
    /// it: UTF-16 or UTF-32 (told by a byte order mark or by the NULs of its first bytes, as the
    /// decoder tells them) is converted to UTF-8 and scanned, so a name given twice cannot hide in
    /// another encoding; its fault's place is in the converted text. Any other body is scanned as
    /// UTF-8, where a NUL is a fault like any other control character.
    public static func findAccepting(_ body: Data) -> JSONSyntaxFault? {
        scanAccepting(body, collectingNames: false).fault
    }

    /// ``findAccepting(_:)``'s fault, and when there is none and the text is an object, the names of
    /// its fields as a decoder's keys read them (escapes decoded): what an endpoint checks against
    /// the fields it takes, without a second parse of the body to list them.
    public static func scanAccepting(_ body: Data) -> (fault: JSONSyntaxFault?, fieldNames: [String]?) {
        scanAccepting(body, collectingNames: true)
    }

    private static func scanAccepting(_ body: Data, collectingNames: Bool) -> (fault: JSONSyntaxFault?, fieldNames: [String]?) {
        guard JSONTextEncoding.nonUTF8(of: body) != nil else { return scan(body, collectingNames: collectingNames) }
        guard let text = JSONTextEncoding.utf8(body) else {
            return (JSONSyntaxFault(offset: 0, in: [], textStart: 0, problem: "the text is not valid UTF-16 or UTF-32"), nil)
        }
        return scan(text, collectingNames: collectingNames)
    }

    /// Whether UTF-8 `text` opens a value of another kind than an object: its first byte after a
    /// byte order mark and whitespace is there and is not `{`. Such text is not an object whatever
    /// else is wrong with it, which a decoder that cannot read it at all (`[1`, `5,`) does not say.
    public static func opensOtherThanObject(_ text: some Collection<UInt8>) -> Bool {
        var bytes = text[...]
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { bytes = bytes.dropFirst(3) }
        guard let first = bytes.first(where: { ![0x20, 0x09, 0x0A, 0x0D].contains($0) }) else { return false }
        // A NUL is UTF-16 or UTF-32, which is not looked into here.
        return first != UInt8(ascii: "{") && first != 0 && !text.starts(with: [0xFE, 0xFF]) && !text.starts(with: [0xFF, 0xFE])
    }

    /// The first fault in `bytes` read as UTF-8, or nil if they hold one JSON value with only
    /// whitespace around it (or start with a UTF-16 or UTF-32 byte order mark or two NULs; a body
    /// in those encodings without them is read as UTF-8 here: use `findAccepting` for a body).
    public static func find(in bytes: some Collection<UInt8>) -> JSONSyntaxFault? {
        scan(bytes, collectingNames: false).fault
    }

    private static func scan(_ bytes: some Collection<UInt8>, collectingNames: Bool) -> (fault: JSONSyntaxFault?, fieldNames: [String]?) {
        var scan = GrammarScan(Array(bytes))
        if scan.bytes.starts(with: [0xFE, 0xFF]) || scan.bytes.starts(with: [0xFF, 0xFE]) || scan.bytes.starts(with: [0, 0]) { return (nil, nil) }
        if scan.bytes.starts(with: [0xEF, 0xBB, 0xBF]) { scan.index = 3 }
        if collectingNames { scan.topLevelNames = [] }
        guard let (offset, problem) = scan.scan() else { return (nil, scan.topLevelIsObject ? scan.topLevelNames : nil) }
        var fault = JSONSyntaxFault(offset: offset, in: scan.bytes, textStart: scan.bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0, problem: problem)
        fault.isBeyondFoundation = scan.beyondFoundation
        return (fault, nil)
    }

    /// `textStart` is where the text begins after a byte order mark, which no editor shows.
    init(offset: Int, in bytes: [UInt8], textStart: Int, problem: String) {
        self.offset = offset
        self.problem = problem
        let before = bytes[..<offset]
        line = before.count { $0 == UInt8(ascii: "\n") } + 1
        let lineStart = max(textStart, before.lastIndex(of: UInt8(ascii: "\n")).map { $0 + 1 } ?? 0)
        // Every byte but a UTF-8 continuation byte starts a character.
        column = bytes[min(lineStart, offset)..<offset].count { $0 & 0xC0 != 0x80 } + 1
    }
}

extension JSONSyntaxFault {
    /// A grammar-only scan; `scan()` answers the first fault's offset and problem.
    struct GrammarScan {
        /// `name` and `arrayValue` follow a comma, where a closing bracket is a fault.
        enum Expecting { case value, valueOrClose, arrayValue, nameOrClose, name, colon, commaOrClose, end }

        static let escapable = Set(#""\/bfnrt"#.utf8)

        let bytes: [UInt8]
        var index = 0
        /// The open containers, innermost last: true for an object.
        var objects: [Bool] = []
        /// The names read so far in each open object.
        var names = ObjectNames()
        /// Where the last comma was, for a fault at a closing bracket right after it.
        var lastComma = 0
        /// Set with a fault the decoder does not see.
        var beyondFoundation = false
        /// An empty buffer for the next escaped name to be decoded into (its capacity is kept).
        var scratch: [UInt8] = []
        /// The top-level object's field names, in order, when asked for (not nil).
        var topLevelNames: [String]?
        /// Whether the text's value is an object.
        var topLevelIsObject = false

        init(_ bytes: [UInt8]) { self.bytes = bytes }

        mutating func scan() -> (Int, String)? {
            var expecting = Expecting.value
            while true {
                skipWhitespace()
                guard index < bytes.count else {
                    if expecting == .end { return nil }
                    if objects.isEmpty, expecting == .value { return (index, bytes.isEmpty ? JSONSyntaxFault.empty : JSONSyntaxFault.blank) }
                    return (index, "the text ends early: \(Self.words(for: expecting, inObject: objects.last))")
                }
                let byte = bytes[index]
                switch expecting {
                case .value, .valueOrClose, .arrayValue:
                    if expecting == .valueOrClose, byte == UInt8(ascii: "]") {
                        index += 1
                        endContainer()
                    } else if expecting == .arrayValue, byte == UInt8(ascii: "]") {
                        beyondFoundation = true
                        return (lastComma, "a comma cannot come right before ']'")
                    } else if let fault = value(byte) {
                        return fault
                    } else if byte == UInt8(ascii: "{") || byte == UInt8(ascii: "[") {
                        expecting = byte == UInt8(ascii: "{") ? .nameOrClose : .valueOrClose
                        continue
                    }
                case .nameOrClose, .name:
                    if byte == UInt8(ascii: "}") {
                        guard expecting == .nameOrClose else {
                            beyondFoundation = true
                            return (lastComma, "a comma cannot come right before '}'")
                        }
                        index += 1
                        endContainer()
                    } else if byte == UInt8(ascii: "\"") {
                        let start = index
                        let (fault, name) = name()
                        if let fault { return fault }
                        if !names.insert(name) {
                            beyondFoundation = true
                            return (start, "the field name \(Self.quoted(bytes[(start + 1)..<(index - 1)])) is given twice in this object")
                        }
                        if objects.count == 1 { topLevelNames?.append(name) }
                        expecting = .colon
                        continue
                    } else {
                        return unexpected("expected a field name in double quotes")
                    }
                case .colon:
                    guard byte == UInt8(ascii: ":") else { return unexpected("expected ':' after the field name") }
                    index += 1
                    expecting = .value
                    continue
                case .commaOrClose:
                    let inObject = objects.last ?? false
                    let close = inObject ? UInt8(ascii: "}") : UInt8(ascii: "]")
                    if byte == UInt8(ascii: ",") {
                        lastComma = index
                        index += 1
                        expecting = inObject ? .name : .arrayValue
                        continue
                    }
                    guard byte == close else { return unexpected(Self.words(for: .commaOrClose, inObject: inObject)) }
                    index += 1
                    endContainer()
                case .end:
                    return unexpected("more after the JSON value")
                }
                expecting = objects.isEmpty ? .end : .commaOrClose
            }
        }

        /// Scans a value starting with `byte`; a container is only opened (its contents follow).
        mutating func value(_ byte: UInt8) -> (Int, String)? {
            switch byte {
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                guard objects.count < JSONSyntaxFault.maximumDepth else {
                    return (index, "arrays and objects nest deeper than \(JSONSyntaxFault.maximumDepth) levels here")
                }
                if objects.isEmpty { topLevelIsObject = byte == UInt8(ascii: "{") }
                objects.append(byte == UInt8(ascii: "{"))
                names.open(isObject: byte == UInt8(ascii: "{"))
                index += 1
                return nil
            case UInt8(ascii: "\""): return string()
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return number()
            case UInt8(ascii: "t"): return literal("true")
            case UInt8(ascii: "f"): return literal("false")
            case UInt8(ascii: "n"): return literal("null")
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"): return bareWord()
            default: return unexpected("expected a value")
            }
        }

        /// Ends the innermost container.
        mutating func endContainer() {
            objects.removeLast()
            names.close()
        }

        /// Scans a field name and returns its value. One without escapes is its bytes, taken as they
        /// are; one with them is decoded as the scan goes, from the first backslash on, into a buffer
        /// kept from name to name (a body of many escaped names reads each once and allocates little).
        mutating func name() -> (fault: (Int, String)?, name: String) {
            let start = index
            var decoded: [UInt8]? = nil
            if let fault = string(into: &decoded, fromFirstEscape: true) { return (fault, "") }
            guard var value = decoded else { return (nil, String(decoding: bytes[(start + 1)..<(index - 1)], as: UTF8.self)) }
            decoded = nil
            let name = String(decoding: value, as: UTF8.self)
            value.removeAll(keepingCapacity: true)
            scratch = value
            return (nil, name)
        }

        mutating func string() -> (Int, String)? {
            var ignored: [UInt8]? = nil
            return string(into: &ignored)
        }

        /// Scans a string, appending its value's UTF-8 to `value` unless it is nil; with
        /// `fromFirstEscape`, a nil `value` becomes the scratch buffer at the first backslash, holding
        /// the string read so far.
        mutating func string(into value: inout [UInt8]?, fromFirstEscape: Bool = false) -> (Int, String)? {
            let start = index
            index += 1
            while index < bytes.count {
                // Most of a string is printable ASCII, taken a run at a time.
                let run = index
                while index < bytes.count, Self.isPlain(bytes[index]) { index += 1 }
                if index > run { value?.append(contentsOf: bytes[run..<index]) }
                guard index < bytes.count else { break }
                let byte = bytes[index]
                switch byte {
                case UInt8(ascii: "\""):
                    index += 1
                    return nil
                case UInt8(ascii: "\\"):
                    guard index + 1 < bytes.count else { return (start, "the string that starts here is not closed") }
                    if fromFirstEscape, value == nil {
                        var buffer: [UInt8] = []
                        swap(&buffer, &scratch)
                        buffer.append(contentsOf: bytes[(start + 1)..<index])
                        value = consume buffer
                    }
                    let escaped = bytes[index + 1]
                    if escaped == UInt8(ascii: "u") {
                        guard let unit = hexUnit(at: index) else {
                            return (index, "\\u must be followed by four hexadecimal digits")
                        }
                        // UTF-16 surrogates come in pairs, a high one and then a low one.
                        if (0xDC00..<0xE000).contains(unit) {
                            return (index, "\\u\(Self.hex4(unit)) is the second half of a surrogate pair without the first")
                        }
                        if (0xD800..<0xDC00).contains(unit) {
                            guard index + 7 < bytes.count, bytes[index + 6] == UInt8(ascii: "\\"), bytes[index + 7] == UInt8(ascii: "u"),
                                  let low = hexUnit(at: index + 6), (0xDC00..<0xE000).contains(low) else {
                                return (index, "\\u\(Self.hex4(unit)) is the first half of a surrogate pair without the second")
                            }
                            if value != nil { Self.append(0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00), to: &value) }
                            index += 6
                        } else if value != nil {
                            Self.append(unit, to: &value)
                        }
                        index += 6
                    } else {
                        guard Self.escapable.contains(escaped) else {
                            return (index, "\(Self.shown(bytes, at: index + 1)) cannot follow a backslash")
                        }
                        value?.append(Self.unescaped(escaped))
                        index += 2
                    }
                case ..<0x20:
                    return (index, "a control character (\(Self.hex(byte))) must be escaped inside a string")
                case 0x80...:
                    var iterator = bytes[index...].makeIterator()
                    var codec = UTF8()
                    guard case .scalarValue(let scalar) = codec.decode(&iterator) else {
                        return (index, "byte \(Self.hex(byte)) is not UTF-8")
                    }
                    value?.append(contentsOf: bytes[index..<(index + UTF8.width(scalar))])
                    index += UTF8.width(scalar)
                default:
                    value?.append(byte)
                    index += 1
                }
            }
            return (start, "the string that starts here is not closed")
        }

        mutating func number() -> (Int, String)? {
            if bytes[index] == UInt8(ascii: "-") { index += 1 }
            let integer = digits()
            guard integer > 0 else { return unexpected("expected a digit") }
            if integer > 1, bytes[index - integer] == UInt8(ascii: "0") {
                return (index - integer, "a number cannot start with 0")
            }
            if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
                index += 1
                guard digits() > 0 else { return unexpected("expected a digit after the decimal point") }
            }
            if index < bytes.count, bytes[index] | 0x20 == UInt8(ascii: "e") {
                index += 1
                if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") { index += 1 }
                guard digits() > 0 else { return unexpected("expected a digit in the number's exponent") }
            }
            return nil
        }

        /// Skips digits and answers how many there were.
        mutating func digits() -> Int {
            let start = index
            while index < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) { index += 1 }
            return index - start
        }

        mutating func literal(_ word: StaticString) -> (Int, String)? {
            let expected = UnsafeBufferPointer(start: word.utf8Start, count: word.utf8CodeUnitCount)
            guard bytes[index...].starts(with: expected) else { return bareWord() }
            index += expected.count
            return nil
        }

        /// A word where a value belongs that is not one of JSON's three (`tru`, `None`, `not json`):
        /// the fault names the word rather than the literal its first letter suggests.
        func bareWord() -> (Int, String) {
            // `| 0x20` lowercases an ASCII letter and makes a lowercase letter of no other byte.
            let isLetter = { (byte: UInt8) in (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte | 0x20) }
            let end = bytes[index...].prefix(32).firstIndex(where: { !isLetter($0) }) ?? min(bytes.count, index + 32)
            let word = String(decoding: bytes[index..<end], as: UTF8.self)
            return (index, "expected a value, found '\(word)' (JSON's only bare words are true, false and null)")
        }

        /// The UTF-16 unit of the `\\u` escape whose backslash is at `offset`, if four hex digits follow.
        func hexUnit(at offset: Int) -> Int? {
            guard offset + 6 <= bytes.count else { return nil }
            let digits = bytes[(offset + 2)..<(offset + 6)]
            guard digits.allSatisfy(Self.isHexDigit) else { return nil }
            return Int(String(decoding: digits, as: UTF8.self), radix: 16)
        }

        mutating func skipWhitespace() {
            while index < bytes.count, Self.isWhitespace(bytes[index]) { index += 1 }
        }

        /// A fault at the current byte, naming it.
        func unexpected(_ expected: String) -> (Int, String) {
            guard index < bytes.count else { return (index, "the text ends early: \(expected)") }
            return (index, "\(expected), found \(Self.shown(bytes, at: index))")
        }

        static func words(for expecting: Expecting, inObject: Bool?) -> String {
            switch expecting {
            case .value, .valueOrClose, .arrayValue: "expected a value"
            case .nameOrClose, .name: "expected a field name in double quotes"
            case .colon: "expected ':' after the field name"
            case .commaOrClose: inObject == true ? "expected ',' or '}'" : "expected ',' or ']'"
            case .end: "expected the end of the text"
            }
        }

        /// A byte that stands for itself inside a string: printable ASCII but `"` and `\\`.
        static func isPlain(_ byte: UInt8) -> Bool {
            byte >= 0x20 && byte < 0x80 && byte != UInt8(ascii: "\"") && byte != UInt8(ascii: "\\")
        }

        static func isWhitespace(_ byte: UInt8) -> Bool {
            byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09
        }

        static func isHexDigit(_ byte: UInt8) -> Bool {
            (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(byte | 0x20)
        }

        /// The character at `offset` as a reader would recognise it: printable ASCII in quotes, any
        /// other character with its code point (a curly quote pasted from a document, say), and a
        /// byte that does not start UTF-8 in hexadecimal.
        static func shown(_ bytes: [UInt8], at offset: Int) -> String {
            let byte = bytes[offset]
            if (0x21..<0x7F).contains(byte) { return "'\(Character(Unicode.Scalar(byte)))'" }
            var iterator = bytes[offset...].makeIterator()
            var codec = UTF8()
            if byte >= 0x80, case .scalarValue(let scalar) = codec.decode(&iterator) {
                return "'\(Character(scalar))' (U+\(String(scalar.value, radix: 16, uppercase: true)))"
            }
            return "byte \(hex(byte))"
        }

        /// The byte an escape letter stands for (`n` for a line feed); the letter is one of `escapable`.
        static func unescaped(_ letter: UInt8) -> UInt8 {
            switch letter {
            case UInt8(ascii: "b"): 0x08
            case UInt8(ascii: "f"): 0x0C
            case UInt8(ascii: "n"): 0x0A
            case UInt8(ascii: "r"): 0x0D
            case UInt8(ascii: "t"): 0x09
            default: letter
            }
        }

        /// Appends the UTF-8 of a code point (never a surrogate: those come in checked pairs).
        static func append(_ codePoint: Int, to value: inout [UInt8]?) {
            guard let scalar = Unicode.Scalar(UInt32(codePoint)) else { return }
            value?.append(contentsOf: UTF8.encode(scalar).map { Array($0) } ?? [])
        }

        /// A name as written between its quotes, in double quotes, cut at 64 characters.
        static func quoted(_ written: ArraySlice<UInt8>) -> String {
            let text = String(decoding: written, as: UTF8.self)
            return "\"" + (text.count > 64 ? text.prefix(64) + "…" : text) + "\""
        }

        static func hex4(_ unit: Int) -> String {
            let digits = String(unit, radix: 16, uppercase: true)
            return String(repeating: "0", count: max(0, 4 - digits.count)) + digits
        }

        static func hex(_ byte: UInt8) -> String {
            "0x" + (byte < 0x10 ? "0" : "") + String(byte, radix: 16, uppercase: true)
        }
    }
}
