import Foundation
import Testing

@testable import Ledger

/// User documents are written by the hand-made JSON writer and read by the scanner (every link writes
/// one, every entitlement read reads one): bytes as `JSONEncoder` writes them, values as it reads them.
@Suite("UserDocument: the JSON writer and scanner agree with Foundation")
struct UserDocumentJSONTests {
    static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return encoder
    }()

    @Test(arguments: 0..<100)
    func randomDocumentsEncodeLikeJSONEncoderAndScanBack(seed: Int) throws {
        var random = SplitMix64(state: UInt64(seed) &+ 9_000)
        // Keys of different lengths and shapes, so key order is tested ("10" sorts before "9").
        let ids = ["9", "10", "2000000123", "20000001230", "Z", "é", "a b", "quote\"d"]
        var state = UserState(userId: ["u1", "user-\(seed)", "ünïcode", "tab\there", "6F0C2D4E-3F0B"][seed % 5])
        for offset in 0..<Int(random.next() % 6) {
            state.chains[ids[Int(random.next() % UInt64(ids.count))] + String(offset)] = Int64(random.next() % 2_000_000_000_000)
        }
        let document = UserDocument(state: state, position: Int64(random.next() % 1_000_000))
        let expected = try Self.encoder.encode(document)
        let written = try document.encodedJSON(fallback: Self.encoder)
        #expect(String(decoding: written, as: UTF8.self) == String(decoding: expected, as: UTF8.self))
        #expect(try UserDocument.decode(from: written) == document)
        // The scanner reads keys in place, so a key with an escape sends the text to JSONDecoder.
        let keysNeedEscapes = state.chains.keys.contains { $0.contains("\"") }
        #expect(UserDocument.scanned(from: written) == (keysNeedEscapes ? nil : document))
    }

    /// A document with grants goes to JSONEncoder and JSONDecoder both ways.
    @Test func grantsTakeFoundationBothWays() throws {
        var state = UserState(userId: "u1")
        state.chains["1000"] = 5
        state.grant(ManualGrant(grantId: "g1", userId: "u1", entitlement: "pro", expiresAt: 10, reason: "support", at: 1))
        let document = UserDocument(state: state, position: 3)
        let written = try document.encodedJSON(fallback: Self.encoder)
        #expect(written == (try Self.encoder.encode(document)))
        #expect(UserDocument.scanned(from: written) == nil)
        #expect(try UserDocument.decode(from: written) == document)
    }

    /// Text outside the scanner's shape goes to JSONDecoder, which accepts or rejects it as before.
    @Test(arguments: [
        #"{"position":1,"state":{"chains":{},"grants":{},"userId":"u"},"extra":[1,{"a":null}]}"#,
        #"{"position":1.5,"state":{"chains":{},"grants":{},"userId":"u"}}"#,
        #"{"position":1,"state":{"grants":{},"userId":"u"}}"#,
        #"{"position":1,"state":{"chains":{"a":1.5},"grants":{},"userId":"u"}}"#,
        #"{"position":1,"state":{"chains":{"1":2},"grants":{},"userId":null}}"#,
        "[]",
        // Found by `scripts/fuzz stored`: the scanner read these, JSONDecoder refuses the first and
        // keeps the first of two equal keys in the others.
        #"{"position":1,"state":{"chains":{},"userId":"u"}}"#,
        #"{"position":1,"state":{"chains":{"a":1,"a":2},"grants":{},"userId":"u"}}"#,
        #"{"position":1,"state":{"chains":{},"grants":{},"userId":"u","userId":"v"}}"#,
        #"{"position":1,"position":2,"state":{"chains":{},"grants":{},"userId":"u"}}"#,
    ])
    func unexpectedShapesFallBackToJSONDecoder(text: String) {
        let data = Data(text.utf8)
        let viaDecode = try? UserDocument.decode(from: data)
        let viaFoundation = try? JSONDecoder().decode(UserDocument.self, from: data)
        #expect(viaDecode == viaFoundation)
    }
}
