@testable import AppStore
import Foundation
import Testing

/// `JSONSyntaxFault` names the first place a text stops being JSON, and finds none in JSON: it must
/// agree with Foundation's parser on what is JSON, or a client would be told of a fault the server
/// does not see, except for two liberties the decoder takes, which are faults marked as such.
struct JSONSyntaxFaultTests {
    @Test(arguments: [
        ("", "it is empty"),
        (" \n ", "it holds only whitespace"),
        (#"{"user_id":"u1","#, "the text ends early: expected a field name in double quotes (line 1, column 17)"),
        (#"{"user_id" "u1"}"#, "expected ':' after the field name, found '\"' (line 1, column 12)"),
        (#"{'user_id':"u1"}"#, "expected a field name in double quotes, found ''' (line 1, column 2)"),
        ("\u{FEFF}{'user_id':\"u1\"}", "expected a field name in double quotes, found ''' (line 1, column 2)"),
        (#"{user_id:"u1"}"#, "expected a field name in double quotes, found 'u' (line 1, column 2)"),
        ("{\n  \"a\": 1\n  \"b\": 2\n}", "expected ',' or '}', found '\"' (line 3, column 3)"),
        // Columns count characters, not bytes: é and a combining accent before the fault.
        ("{\"caf\u{E9}\u{301}\": 1, \"b\": x}", "expected a value, found 'x' (JSON's only bare words are true, false and null) (line 1, column 19)"),
        (#"[1, 2 3]"#, "expected ',' or ']', found '3' (line 1, column 7)"),
        (#"{"a":1,,}"#, "expected a field name in double quotes, found ',' (line 1, column 8)"),
        (#"[1,,]"#, "expected a value, found ',' (line 1, column 4)"),
        (#"[,]"#, "expected a value, found ',' (line 1, column 2)"),
        // A word that is not one of JSON's three is named, not the literal its first letter suggests.
        (#"{"a": tru}"#, "expected a value, found 'tru' (JSON's only bare words are true, false and null) (line 1, column 7)"),
        (#"{"a": None}"#, "expected a value, found 'None' (JSON's only bare words are true, false and null) (line 1, column 7)"),
        ("not json", "expected a value, found 'not' (JSON's only bare words are true, false and null) (line 1, column 1)"),
        ("[nul", "expected a value, found 'nul' (JSON's only bare words are true, false and null) (line 1, column 2)"),
        ("[fals\u{E9}]", "expected a value, found 'fals' (JSON's only bare words are true, false and null) (line 1, column 2)"),
        ("{\"a\": \u{201C}x\u{201D}}", "expected a value, found '\u{201C}' (U+201C) (line 1, column 7)"),
        (#"{"a": "x}"#, "the string that starts here is not closed (line 1, column 7)"),
        ("{\"a\": \"x\ny\"}", "a control character (0x0A) must be escaped inside a string (line 1, column 9)"),
        (#"{"a": "\x"}"#, "'x' cannot follow a backslash (line 1, column 8)"),
        (#"{"a": "\u12g4"}"#, "\\u must be followed by four hexadecimal digits (line 1, column 8)"),
        (#"{"a": "\u12"#, "\\u must be followed by four hexadecimal digits (line 1, column 8)"),
        (#"["\ud800"]"#, "\\uD800 is the first half of a surrogate pair without the second (line 1, column 3)"),
        (#"["\ud800\u0041"]"#, "\\uD800 is the first half of a surrogate pair without the second (line 1, column 3)"),
        (#"["\udc00"]"#, "\\uDC00 is the second half of a surrogate pair without the first (line 1, column 3)"),
        (#"{"a": 012}"#, "a number cannot start with 0 (line 1, column 7)"),
        (#"{"a": 1.}"#, "expected a digit after the decimal point, found '}' (line 1, column 9)"),
        (#"{"a": 1e}"#, "expected a digit in the number's exponent, found '}' (line 1, column 9)"),
        (#"{"a": -}"#, "expected a digit, found '}' (line 1, column 8)"),
        (#"{"a": -"#, "the text ends early: expected a digit (line 1, column 8)"),
        (#"{"a": 1} {"#, "more after the JSON value, found '{' (line 1, column 10)"),
        ("{\"a\": 1}\u{0}", "more after the JSON value, found byte 0x00 (line 1, column 9)"),
    ])
    func theFirstFaultIsNamedWithItsLineAndColumn(_ text: String, _ said: String) throws {
        let fault = try #require(JSONSyntaxFault.find(in: Array(text.utf8)))
        #expect(fault.description == said)
        #expect((try? JSONSerialization.jsonObject(with: Data(text.utf8), options: .fragmentsAllowed)) == nil, "Foundation reads \(text)")
    }

    @Test(arguments: [
        #"{}"#, #"[]"#, #" { "a" : [ 1 , -0.5e+3 , 2E-2 , true , false , null , "x\"\\\/\b\f\n\r\t\u00e9" ] } "#,
        #"{"a":{"b":[{},[]]},"c":""}"#, "\"caf\u{E9}\"", "0", "-12", "[[[[[[]]]]]]",
        #"["\ud83d\ude00"]"#, "[\"\u{1F600}\"]",
        // A byte order mark, which RFC 8259 lets a parser ignore; one name in two objects.
        "\u{FEFF}{\"a\":1}", #"{"a":{"b":1},"b":2}"#, #"[{"a":1},{"a":1}]"#,
    ])
    func jsonHasNoFault(_ text: String) throws {
        #expect(JSONSyntaxFault.find(in: Array(text.utf8)) == nil)
        #expect((try? JSONSerialization.jsonObject(with: Data(text.utf8), options: .fragmentsAllowed)) != nil)
    }

    /// Two liberties Foundation's decoder takes are faults here, marked as such: a kept body must read
    /// the same to every reader, and a name given twice is the first to the decoder, the last to
    /// others (a V1 body's password among them).
    @Test(arguments: [
        (#"{"a":1,}"#, "a comma cannot come right before '}' (line 1, column 7)"),
        (#"[1, [2,],]"#, "a comma cannot come right before ']' (line 1, column 7)"),
        ("{\n  \"a\": 1,\n}", "a comma cannot come right before '}' (line 2, column 9)"),
        (#"{"a":1,"a":2}"#, "the field name \"a\" is given twice in this object (line 1, column 8)"),
        (#"{"password":"x","pass\u0077ord":"y"}"#, "the field name \"pass\\u0077ord\" is given twice in this object (line 1, column 17)"),
        ("{\"a\":{\"\\ud83d\\ude00\":1,\"\u{1F600}\":2}}", "the field name \"\u{1F600}\" is given twice in this object (line 1, column 24)"),
        ("{\"\u{E9}\":1,\"e\u{301}\":2}", "the field name \"e\u{301}\" is given twice in this object (line 1, column 8)"),
    ])
    func foundationsLibertiesAreFaultsMarkedAsSuch(_ text: String, _ said: String) throws {
        let fault = try #require(JSONSyntaxFault.find(in: Array(text.utf8)))
        #expect(fault.description == said)
        #expect(fault.isBeyondFoundation)
        #expect((try? JSONSerialization.jsonObject(with: Data(text.utf8), options: .fragmentsAllowed)) != nil, "Foundation refuses \(text)")
    }

    /// Names are compared one by one up to `linearLimit` in an object and through a set past it;
    /// a name given twice is found either way, wherever its first use was, and an object's names
    /// never leak into its parent, its siblings or its children.
    @Test func aNameGivenTwiceIsFoundInObjectsOfAnySize() throws {
        let limit = JSONSyntaxFault.ObjectNames.linearLimit
        func object(_ count: Int, then extra: String = "") -> String {
            "{" + (0..<count).map { #""n\#($0)":\#($0)"# }.joined(separator: ",") + extra + "}"
        }
        for count in [1, limit - 1, limit, limit + 1, limit + 2, 3 * limit] {
            #expect(JSONSyntaxFault.find(in: Array(object(count).utf8)) == nil, "\(count) names")
            // The first name again, and the last, each after every other.
            for repeated in [0, count - 1] {
                let text = object(count, then: #","n\#(repeated)":true"#)
                let fault = try #require(JSONSyntaxFault.find(in: Array(text.utf8)), "\(count) names, n\(repeated) again")
                #expect(fault.problem == "the field name \"n\(repeated)\" is given twice in this object")
                #expect(fault.offset == text.utf8.count - #""n\#(repeated)":true}"#.utf8.count)
                #expect(fault.isBeyondFoundation)
            }
            // Written with an escape, or as the Kelvin sign for a K: the same name to the decoder.
            let escaped = object(count, then: #","n\u0030":1"#)
            let escapedFault = JSONSyntaxFault.find(in: Array(escaped.utf8))
            #expect(escapedFault?.isBeyondFoundation == true, "\(count) names")
            #expect(escapedFault?.problem == #"the field name "n\u0030" is given twice in this object"#, "\(count) names")
            // Every name escaped, each decoded into the buffer the one before used: the one given
            // twice is found, and names that differ after their escape are not taken for one another.
            let allEscaped = "{" + (0..<count).map { #""\u006E\#($0)x":0"# }.joined(separator: ",") + #","n\#(count - 1)x":1}"#
            #expect(JSONSyntaxFault.find(in: Array(allEscaped.utf8))?.problem == "the field name \"n\(count - 1)x\" is given twice in this object", "\(count) names")
            let distinct = "{" + (0..<count).map { #""\u006E\#($0)x":0"# }.joined(separator: ",") + "}"
            #expect(JSONSyntaxFault.find(in: Array(distinct.utf8)) == nil, "\(count) names")
            let kelvin = "{\"K\":0," + object(count).dropFirst().dropLast() + ",\"\u{212A}\":1}"
            #expect(JSONSyntaxFault.find(in: Array(kelvin.utf8))?.isBeyondFoundation == true, "\(count) names")
            // Nested objects (large or small) keep their own names, before and after the parent's.
            let nested = "{\"n0\":" + object(count) + ",\"x\":" + object(count) + ",\"n1\":[" + object(count) + "," + object(count) + "]}"
            #expect(JSONSyntaxFault.find(in: Array(nested.utf8)) == nil, "\(count) names")
            let parentTwice = "{\"p\":1,\"c\":" + object(count) + ",\"p\":2}"
            #expect(JSONSyntaxFault.find(in: Array(parentTwice.utf8))?.problem == "the field name \"p\" is given twice in this object", "\(count) names")
        }
    }

    /// An accepted body is scanned in the encoding the decoder read it in, so a name given twice
    /// cannot hide behind a NUL elsewhere in UTF-8 text, or in UTF-16 or UTF-32 (the decoder keeps
    /// the first copy of each).
    @Test func anAcceptedBodyIsScannedInEveryEncoding() throws {
        let nul = Data(#"{"user_id":"a","user_id":"b\#u{0}"}"#.utf8)
        #expect(try #require(JSONSyntaxFault.findAccepting(nul)).description == "the field name \"user_id\" is given twice in this object (line 1, column 16)")
        let twice = #"{"user_id":"a","user_id":"b"}"#
        for encoding in [String.Encoding.utf16, .utf16LittleEndian, .utf16BigEndian, .utf32, .utf32LittleEndian, .utf32BigEndian] {
            let body = try #require(twice.data(using: encoding))
            #expect(JSONTextEncoding.nonUTF8(of: body) != nil, "\(encoding)")
            #expect(JSONSyntaxFault.findAccepting(body)?.isBeyondFoundation == true, "\(encoding)")
            #expect(JSONSyntaxFault.findAccepting(try #require(#"{"user_id":"a"}"#.data(using: encoding))) == nil, "\(encoding)")
        }
        #expect(JSONSyntaxFault.findAccepting(try #require(#"[1,]"#.data(using: .utf16))) != nil)
        #expect(JSONTextEncoding.nonUTF8(of: Data(#"{"a":1}"#.utf8)) == nil)
    }

    /// Every other fault is one Foundation sees too.
    @Test func otherFaultsAreNotMarked() throws {
        #expect(try #require(JSONSyntaxFault.find(in: Array(#"{"a":1,,}"#.utf8))).isBeyondFoundation == false)
        #expect(try #require(JSONSyntaxFault.find(in: Array(#"{"a":x}"#.utf8))).isBeyondFoundation == false)
    }

    /// Every signed payload and model of Apple's in the fixtures is JSON to both parsers.
    @Test func applesSampleModelsHaveNoFault() throws {
        let files = try Fixture.files(in: "models", withExtension: "json")
        #expect(files.count > 5)
        for file in files {
            #expect(JSONSyntaxFault.find(in: try Fixture.data(file)) == nil, "\(file)")
        }
    }

    /// Nesting is limited as the decoder limits it, and scanned without recursion: a body of
    /// nothing but brackets, up to the body limit, is answered, not a crashed server.
    @Test func nestingStopsWhereTheDecodersDoes() throws {
        func nested(_ depth: Int) -> [UInt8] {
            [UInt8](repeating: UInt8(ascii: "["), count: depth) + [UInt8](repeating: UInt8(ascii: "]"), count: depth)
        }
        let limit = JSONSyntaxFault.maximumDepth
        #expect(JSONSyntaxFault.find(in: nested(limit)) == nil)
        #expect((try? JSONDecoder().decode(Nested.self, from: Data(nested(limit)))) != nil)
        let deeper = try #require(JSONSyntaxFault.find(in: nested(limit + 1)))
        #expect(deeper.description == "arrays and objects nest deeper than 512 levels here (line 1, column 513)")
        #expect((try? JSONDecoder().decode(Nested.self, from: Data(nested(limit + 1)))) == nil)
        #expect(JSONSyntaxFault.find(in: nested(1 << 20))?.column == 513)
    }

    /// The decoder traps on a text ending on the `[` of its 513th level; the untrusted decode refuses
    /// any text ending on an opening bracket first, as not JSON, and the fault scan says why.
    @Test func aTextEndingOnAnOpeningBracketNeverReachesTheDecoder() throws {
        for text in [String(repeating: "[", count: 513), #"{"a":"# + String(repeating: "[", count: 512), "{", "[1, {"] {
            do {
                _ = try JSONDecoder().decode(Nested.self, fromUntrusted: Data(text.utf8))
                Issue.record("decoded \(text.prefix(20))")
            } catch let error as DecodingError {
                guard case .dataCorrupted(let context) = error else { Issue.record("\(error)"); continue }
                #expect(context.codingPath.isEmpty)
            }
        }
        let error = DecodingError.dataCorrupted(.init(codingPath: [], debugDescription: ""))
        #expect(error.summary(of: Array(String(repeating: "[", count: 513).utf8))
            == "the top level must be an object, and the text is not valid JSON: arrays and objects nest deeper than 512 levels here (line 1, column 513)")
        #expect(error.summary(of: Array((#"{"a":"# + String(repeating: "[", count: 512)).utf8))
            == "not valid JSON: arrays and objects nest deeper than 512 levels here (line 1, column 517)")
    }

    /// An array of arrays, as deep as the input.
    struct Nested: Decodable {
        init(from decoder: any Decoder) throws {
            var container = try decoder.unkeyedContainer()
            while !container.isAtEnd { _ = try container.decode(Nested.self) }
        }
    }

    /// Bytes that are not UTF-8 are a fault; UTF-16, which the decoder converts, is not scanned.
    @Test func encodingsAreJudgedAsTheDecoderJudgesThem() throws {
        let invalid: [UInt8] = Array(#"{"a": ""#.utf8) + [0xC3, 0x28] + Array(#""}"#.utf8)
        #expect(JSONSyntaxFault.find(in: invalid)?.description == "byte 0xC3 is not UTF-8 (line 1, column 8)")
        #expect((try? JSONSerialization.jsonObject(with: Data(invalid))) == nil)
        let utf16 = Array(#"{"a": 'x'}"#.data(using: .utf16) ?? Data())
        #expect(utf16.first == 0xFF || utf16.first == 0xFE)
        #expect(JSONSyntaxFault.find(in: utf16) == nil)
    }

    /// Every prefix of a JSON text is either JSON itself or a fault both parsers see.
    @Test func everyPrefixOfAnObjectAgreesWithFoundation() throws {
        let text = Array((#"{"user_id": "u1", "n": [1, -2.5e3, true, null], "s": "a\"b\u00e9\ud83d\ude00", "t": ""# + "\u{E9}\u{1F600}" + #""}"#).utf8)
        for end in 0...text.count {
            let prefix = Array(text[..<end])
            let foundation = (try? JSONSerialization.jsonObject(with: Data(prefix), options: .fragmentsAllowed)) != nil
            #expect((JSONSyntaxFault.find(in: prefix) == nil) == foundation, "\(String(decoding: prefix, as: UTF8.self))")
        }
    }

    /// Text that opens another value than an object is not one, whatever else is wrong with it;
    /// empty text, text that opens an object, and UTF-16 or UTF-32 (not looked into) are not told so.
    @Test func textOpeningAnotherKindOfValueIsToldApart() throws {
        for text in ["[1", " 5,", "\n\t\"a", "\u{FEFF}[", "tru", "}"] {
            #expect(JSONSyntaxFault.opensOtherThanObject(Array(text.utf8)), "\(text)")
        }
        for text in ["", "  ", "{", " \r\n{\"a\"", "\u{FEFF}{"] {
            #expect(!JSONSyntaxFault.opensOtherThanObject(Array(text.utf8)), "\(text)")
        }
        #expect(!JSONSyntaxFault.opensOtherThanObject(Array(try #require("[1]".data(using: .utf16)))))
        #expect(!JSONSyntaxFault.opensOtherThanObject(Array(try #require("[1]".data(using: .utf16BigEndian)))))
    }

    /// The scan an endpoint checks fields with lists the top-level object's names as the decoder's
    /// keys read them (escapes decoded, nested objects' names left out), and none for other values
    /// or for text with a fault.
    @Test func theAcceptingScanListsTheTopLevelFieldNames() throws {
        let body = #"{"user_id":"u1", "n\u00e9" : {"inner":1}, "list":[{"deep":2}], "":null}"#
        let scan = JSONSyntaxFault.scanAccepting(Data(body.utf8))
        #expect(scan.fault == nil)
        #expect(scan.fieldNames == ["user_id", "n\u{e9}", "list", ""])
        #expect(JSONSyntaxFault.scanAccepting(Data("{}".utf8)).fieldNames == [])
        #expect(JSONSyntaxFault.scanAccepting(Data(#"[{"a":1}]"#.utf8)).fieldNames == nil)
        #expect(JSONSyntaxFault.scanAccepting(Data(#""text""#.utf8)).fieldNames == nil)
        let faulty = JSONSyntaxFault.scanAccepting(Data(#"{"a":1,}"#.utf8))
        #expect(faulty.fault != nil && faulty.fieldNames == nil)
        let utf16 = JSONSyntaxFault.scanAccepting(try #require(#"{"a":1,"b":{"c":2}}"#.data(using: .utf16)))
        #expect(utf16.fieldNames == ["a", "b"])
        // The names a decoder reads as keys, in the same text.
        struct Keys: Decodable {
            var names: [String]
            struct Key: CodingKey {
                var stringValue: String
                var intValue: Int? { nil }
                init(stringValue: String) { self.stringValue = stringValue }
                init?(intValue: Int) { nil }
            }
            init(from decoder: any Decoder) throws { names = try decoder.container(keyedBy: Key.self).allKeys.map(\.stringValue) }
        }
        #expect(Set(try JSONDecoder().decode(Keys.self, from: Data(body.utf8)).names) == Set(try #require(scan.fieldNames)))
    }
}
