/// Where a text stops being JSON (RFC 8259), so an answer can say more than Foundation's "The given
/// data was not valid JSON": the first fault, what was expected there, and its line and column.
///
/// It allows what Foundation's decoder allows besides the grammar, a comma before a closing bracket
/// and a leading byte order mark, so it names no fault in a text the decoder reads.
///
/// The scan checks the grammar only, without building values, and keeps its nesting on a heap
/// stack, so any input up to the body limit is scanned without deep recursion. It does not check
/// UTF-8; a text it finds no fault in may still be refused by the decoder for that.
public struct JSONSyntaxFault: Hashable, Sendable, CustomStringConvertible {
    /// The byte offset of the fault (the text's length when it ends early).
    public var offset: Int
    /// The fault's line, from 1.
    public var line: Int
    /// The fault's column in bytes, from 1.
    public var column: Int
    /// What is wrong there, e.g. `expected ':' after the field name, found '"'`.
    public var problem: String

    /// The problem and where it is: `expected ',' or '}' at line 2, column 9, found '"'`.
    public var description: String {
        problem == Self.empty ? problem : "\(problem) (line \(line), column \(column))"
    }

    static let empty = "it is empty"

    /// The first fault in `bytes`, or nil if they hold one JSON value with only whitespace around it.
    public static func find(in bytes: some Collection<UInt8>) -> JSONSyntaxFault? {
        var scanner = Scanner(Array(bytes))
        if scanner.bytes.starts(with: [0xEF, 0xBB, 0xBF]) { scanner.index = 3 }
        guard let (offset, problem) = scanner.scan() else { return nil }
        return JSONSyntaxFault(offset: offset, in: scanner.bytes, problem: problem)
    }

    init(offset: Int, in bytes: [UInt8], problem: String) {
        self.offset = offset
        self.problem = problem
        let before = bytes[..<offset]
        line = before.count { $0 == UInt8(ascii: "\n") } + 1
        column = offset - (before.lastIndex(of: UInt8(ascii: "\n")).map { $0 + 1 } ?? 0) + 1
    }
}

extension JSONSyntaxFault {
    /// A grammar-only scan; `scan()` answers the first fault's offset and problem.
    struct Scanner {
        enum Expecting { case value, valueOrClose, nameOrClose, colon, commaOrClose, end }

        let bytes: [UInt8]
        var index = 0
        /// The open containers, innermost last: true for an object.
        var objects: [Bool] = []

        init(_ bytes: [UInt8]) { self.bytes = bytes }

        mutating func scan() -> (Int, String)? {
            var expecting = Expecting.value
            while true {
                skipWhitespace()
                guard index < bytes.count else {
                    if expecting == .end { return nil }
                    if objects.isEmpty, expecting == .value { return (index, JSONSyntaxFault.empty) }
                    return (index, "the text ends early: \(Self.words(for: expecting, inObject: objects.last))")
                }
                let byte = bytes[index]
                switch expecting {
                case .value, .valueOrClose:
                    if expecting == .valueOrClose, byte == UInt8(ascii: "]") {
                        index += 1
                        objects.removeLast()
                    } else if let fault = value(byte) {
                        return fault
                    } else if byte == UInt8(ascii: "{") || byte == UInt8(ascii: "[") {
                        expecting = byte == UInt8(ascii: "{") ? .nameOrClose : .valueOrClose
                        continue
                    }
                case .nameOrClose:
                    if byte == UInt8(ascii: "}") {
                        index += 1
                        objects.removeLast()
                    } else if byte == UInt8(ascii: "\"") {
                        if let fault = string() { return fault }
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
                        index += 1
                        expecting = inObject ? .nameOrClose : .valueOrClose
                        continue
                    }
                    guard byte == close else { return unexpected(Self.words(for: .commaOrClose, inObject: inObject)) }
                    index += 1
                    objects.removeLast()
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
                objects.append(byte == UInt8(ascii: "{"))
                index += 1
                return nil
            case UInt8(ascii: "\""): return string()
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return number()
            case UInt8(ascii: "t"): return literal("true")
            case UInt8(ascii: "f"): return literal("false")
            case UInt8(ascii: "n"): return literal("null")
            default: return unexpected("expected a value")
            }
        }

        mutating func string() -> (Int, String)? {
            let start = index
            index += 1
            while index < bytes.count {
                let byte = bytes[index]
                switch byte {
                case UInt8(ascii: "\""):
                    index += 1
                    return nil
                case UInt8(ascii: "\\"):
                    guard index + 1 < bytes.count else { return (start, "the string that starts here is not closed") }
                    let escaped = bytes[index + 1]
                    if escaped == UInt8(ascii: "u") {
                        let digits = bytes[(index + 2)..<min(index + 6, bytes.count)]
                        guard digits.count == 4, digits.allSatisfy(Self.isHexDigit) else {
                            return (index, "\\u must be followed by four hexadecimal digits")
                        }
                        index += 6
                    } else {
                        guard Array(#""\/bfnrt"#.utf8).contains(escaped) else {
                            return (index, "\(Self.shown(bytes, at: index + 1)) cannot follow a backslash")
                        }
                        index += 2
                    }
                case ..<0x20:
                    return (index, "a control character (\(Self.hex(byte))) must be escaped inside a string")
                default:
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

        mutating func literal(_ word: String) -> (Int, String)? {
            let expected = Array(word.utf8)
            guard bytes[index...].starts(with: expected) else {
                return (index, "expected \(word)")
            }
            index += expected.count
            return nil
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
            case .value, .valueOrClose: "expected a value"
            case .nameOrClose: "expected a field name in double quotes"
            case .colon: "expected ':' after the field name"
            case .commaOrClose: inObject == true ? "expected ',' or '}'" : "expected ',' or ']'"
            case .end: "expected the end of the text"
            }
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

        static func hex(_ byte: UInt8) -> String {
            "0x" + (byte < 0x10 ? "0" : "") + String(byte, radix: 16, uppercase: true)
        }
    }
}
