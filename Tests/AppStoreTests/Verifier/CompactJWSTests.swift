@testable import AppStore
import Foundation
import Testing

/// Splitting a compact JWS at its dots (found with `memchr`) and the shape errors it raises.
@Suite("CompactJWS: segments and shape errors")
struct CompactJWSTests {
    static let header = JWSBuilder.base64URL(Data(#"{"alg":"ES256"}"#.utf8))
    static let payload = JWSBuilder.base64URL(Data(#"{"productId":"pro.monthly"}"#.utf8))

    func message(_ text: String) -> String? {
        do {
            _ = try CompactJWS(text, headers: nil)
            return nil
        } catch let error as AppStoreError {
            return error.message
        } catch {
            return "unexpected: \(error)"
        }
    }

    @Test func splitsThreeSegmentsAtTheirDots() throws {
        // Payloads of many lengths, so the dots fall at every offset within a vectorised search's block.
        for padding in 0..<40 {
            let payloadJSON = #"{"productId":"\#(String(repeating: "p", count: padding))"}"#
            let payload = JWSBuilder.base64URL(Data(payloadJSON.utf8))
            let text = "\(Self.header).\(payload).AAAA"
            let jws = try CompactJWS(text, headers: nil)
            #expect(jws.header.alg == "ES256")
            #expect(jws.payload == Data(payloadJSON.utf8))
            #expect(jws.signature == [0, 0, 0])
            #expect(jws.signingInputLength == Self.header.utf8.count + 1 + payload.utf8.count)
        }
    }

    @Test func namesEachWrongShape() {
        let cases: [(String, String)] = [
            ("", "not a compact JWS: no '.' separator"),
            ("\(Self.header)", "not a compact JWS: no '.' separator"),
            ("\(Self.header).\(Self.payload)", "not a compact JWS: expected 3 segments, found 2"),
            ("\(Self.header).\(Self.payload).AAAA.AAAA", "not a compact JWS: expected 3 segments, found 4"),
            ("\(Self.header).\(Self.payload).AAAA.", "not a compact JWS: expected 3 segments, found 4"),
            (".\(Self.payload).AAAA", "not a compact JWS: empty segment"),
            ("\(Self.header)..AAAA", "not a compact JWS: empty segment"),
            ("\(Self.header).\(Self.payload).", "not a compact JWS: empty segment"),
        ]
        for (text, expected) in cases {
            #expect(message(text) == expected, "\(text)")
        }
    }
}
