@testable import AppStore
import AppStoreTesting
import Foundation
import Testing

/// The notification body's fast path must answer exactly as `JSONDecoder` does, or leave the body to it.
@Suite("ResponseBodyV2: reading Apple's notification body without JSONDecoder")
struct ResponseBodyV2ScanningTests {
    static let jws = "eyJhbGciOiJFUzI1NiJ9.eyJub3RpZmljYXRpb25UeXBlIjoiVEVTVCJ9.c2lnbmF0dXJlLV8="

    func decoded(_ body: String) -> String?? {
        (try? JSONDecoder().decode(ResponseBodyV2.self, from: Data(body.utf8))).map(\.signedPayload)
    }

    @Test func readsApplesShapeWithOrWithoutWhitespace() {
        let bodies = [
            #"{"signedPayload":"\#(Self.jws)"}"#,
            " \n{ \"signedPayload\" :\t\"\(Self.jws)\"\r\n}\n",
            #"{"signedPayload":""}"#,
        ]
        for body in bodies {
            let scanned = ResponseBodyV2.plainSignedPayload(in: Data(body.utf8))
            #expect(scanned != nil, "\(body)")
            #expect(scanned == decoded(body) ?? nil, "\(body)")
        }
    }

    /// Anything else goes to `JSONDecoder`: other keys, escapes, other values, broken JSON.
    @Test func leavesEveryOtherShapeToJSONDecoder() {
        let bodies = [
            "", "{}", "[]", "null", #"{"signedPayload":null}"#, #"{"signedPayload":42}"#,
            #"{"signedPayload":"\#(Self.jws)","extra":1}"#,
            #"{"extra":1,"signedPayload":"\#(Self.jws)"}"#,
            #"{"signedPayload":"a\/b"}"#,
            #"{"signedPayload":"\u0041"}"#,
            #"{"signedPayload":"a+b"}"#,
            #"{"signedPayload":"\#(Self.jws)"} x"#,
            #"{"signedPayload":"\#(Self.jws)""#,
            #"{"signedPayload":"\#(Self.jws)}"#,
            #"{"signedpayload":"\#(Self.jws)"}"#,
        ]
        for body in bodies {
            #expect(ResponseBodyV2.plainSignedPayload(in: Data(body.utf8)) == nil, "\(body)")
        }
        // The decoder still reads the ones that are JSON, as before.
        #expect(decoded(#"{"signedPayload":"a\/b"}"#) == "a/b")
        #expect(decoded(#"{"extra":1,"signedPayload":"\#(Self.jws)"}"#) == Self.jws)
    }

    /// Whitespace inside the string is part of the value, so the fast path must not skip it before
    /// the closing quote (found by `scripts/fuzz notification-body`: `" "` was read as `""`).
    @Test func whitespaceBeforeTheClosingQuoteIsLeftToJSONDecoder() {
        for value in [" ", Self.jws + " "] {
            let body = #"{ "signedPayload" :"\#(value)" }"#
            #expect(ResponseBodyV2.plainSignedPayload(in: Data(body.utf8)) == nil, "\(body)")
            #expect(decoded(body) == value, "\(body)")
        }
        // A raw tab in a string is not JSON at all: the decoder refuses what the fast path once read.
        let tabbed = "{\"signedPayload\":\"\(Self.jws)\t\"}"
        #expect(ResponseBodyV2.plainSignedPayload(in: Data(tabbed.utf8)) == nil)
        #expect(decoded(tabbed) == nil)
    }

    /// Bodies as `TestPKI` (through `JSONEncoder`) and Apple write them take the fast path, and a
    /// body the decoder must read still verifies.
    @Test func verifiesBodiesEitherWay() async throws {
        let pki = try TestPKI()
        let jws = try pki.signNotification(
            type: .test, bundleId: "com.example.app", appAppleId: 1,
            signedDate: AppStoreDate(millisecondsSince1970: 1_767_225_600_000)
        )
        let encoded = try TestPKI.notificationBody(signedPayload: jws)
        #expect(ResponseBodyV2.plainSignedPayload(in: encoded) == jws)
        let verifier = try pki.makeVerifier(bundleId: "com.example.app", appAppleId: 1)
        let now = Date(timeIntervalSince1970: 1_767_225_600)
        let direct = try await verifier.verifyNotificationBody(encoded, now: now)
        let withExtraKey = Data(#"{"unused":true,"signedPayload":"\#(jws)"}"#.utf8)
        #expect(ResponseBodyV2.plainSignedPayload(in: withExtraKey) == nil)
        let viaDecoder = try await verifier.verifyNotificationBody(withExtraKey, now: now)
        #expect(direct.payload.notificationType == .test)
        #expect(viaDecoder.payload == direct.payload)
        // A space after the JWS, inside the string, is not Apple's token: it is refused, not trimmed.
        let padded = Data(#"{"signedPayload":"\#(jws) "}"#.utf8)
        let error = await #expect(throws: AppStoreError.self) { _ = try await verifier.verifyNotificationBody(padded, now: now) }
        #expect(error?.code == .invalidFormat)
    }
}
