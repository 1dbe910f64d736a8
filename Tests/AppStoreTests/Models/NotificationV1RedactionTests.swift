import AppStore
import Foundation
import Testing

/// `NotificationV1.redactingPassword(in:)` removes the shared secret from a V1 body and keeps every
/// other byte, however the body spells the password.
struct NotificationV1RedactionTests {
    private static func redacted(_ text: String) -> String {
        String(decoding: NotificationV1.redactingPassword(in: Data(text.utf8)), as: UTF8.self)
    }

    @Test func onlyThePasswordsValueChangesAndWhitespaceStaysAsSent() {
        let body = "{ \"notification_type\" : \"DID_RENEW\",\n  \"password\" :\t\"s3cret\" , \"bid\":\"com.example.app\",\"unified_receipt\":{\"status\":0}}"
        let expected = "{ \"notification_type\" : \"DID_RENEW\",\n  \"password\" :\t\"[redacted]\" , \"bid\":\"com.example.app\",\"unified_receipt\":{\"status\":0}}"
        #expect(Self.redacted(body) == expected)
    }

    @Test(arguments: [
        #"{"password":"s3\"cr\\et","bid":"a"}"#,      // escapes inside the secret
        #"{"password":12345678,"bid":"a"}"#,          // not a string: refused later, still not kept
        #"{"password":{"inner":"s3cret"},"bid":"a"}"#, // an object
        #"{"password":["s3cret","x"],"bid":"a"}"#,     // an array
        #"{"bid":"a","password":"s3cret"}"#,           // last member
        #"{"password":"s3cret""#,                       // not JSON at all (a refused body)
    ])
    func theSecretIsGoneWhateverItsValueLooksLike(_ body: String) {
        let result = Self.redacted(body)
        for secret in ["s3", "12345678", "cr", "inner"] {
            #expect(!result.contains(secret), "\(result)")
        }
        #expect(result.contains(#""password":"[redacted]""#), "\(result)")
    }

    /// A key spelled with escapes is a `password` key too, wherever it is and however often: the
    /// decoder keeps the first of duplicate keys, so a second one must not survive either.
    @Test(arguments: [
        #"{"pass\u0077ord":"s3cret","bid":"com.example.app"}"#,
        #"{"password":"s3cret","p\u0061ssword":"s3cret","bid":"com.example.app"}"#,
        #"{"password":"guess","p\u0061ssword":"s3cret","bid":"com.example.app"}"#,
        #"{"bid":"com.example.app","unified_receipt":{"p\u0061ssword":"s3cret"}}"#,
        // Another letter case: the decoder does not read it, but the body is kept all the same.
        #"{"password":"s3cret","Password":"s3cret","bid":"com.example.app"}"#,
        #"{"PASSWORD":"s3cret","bid":"com.example.app"}"#,
        #"{"passW\u006frd":"s3cret","bid":"com.example.app"}"#,
    ])
    func aKeyWrittenWithEscapesIsRedactedInPlace(_ body: String) throws {
        let result = NotificationV1.redactingPassword(in: Data(body.utf8))
        let text = String(decoding: result, as: UTF8.self)
        #expect(!text.contains("s3cret") && !text.contains("guess"), "\(text)")
        #expect(text.contains("com.example.app"))
        let decoded = try JSONDecoder().decode(NotificationV1.self, from: result)
        #expect(decoded.password == nil || decoded.password == NotificationV1.redactedPassword)
    }

    /// UTF-16 or UTF-32 text, which the decoder reads but a byte scan for UTF-8 would not see, is
    /// converted to UTF-8 as it is (order and spacing kept, the byte order mark dropped) and
    /// redacted; text that is not JSON in any encoding is replaced by the placeholder.
    @Test(arguments: [String.Encoding.utf16LittleEndian, .utf16BigEndian, .utf16, .utf32, .utf32LittleEndian])
    func aBodyInAnotherEncodingIsConvertedWithoutTheSecret(_ encoding: String.Encoding) throws {
        let body = #"{"password": "s3cret", "bid":"com.example.app"}"#
        let result = String(decoding: NotificationV1.redactingPassword(in: try #require(body.data(using: encoding))), as: UTF8.self)
        #expect(result == #"{"password": "[redacted]", "bid":"com.example.app"}"#)
    }

    @Test func aBodyInAnotherEncodingThatIsNotJSONOrNotValidTextIsReplacedByThePlaceholder() throws {
        let broken = try #require(#"{"password":"s3cret","bid":5"#.data(using: .utf16LittleEndian))
        #expect(String(decoding: NotificationV1.redactingPassword(in: broken), as: UTF8.self) == #"{"password":"[redacted]"}"#)
        // A lone high surrogate (0xD800) in UTF-16LE: no text to convert.
        let surrogate = try #require(#"{"password":"s3cret","bid":""#.data(using: .utf16LittleEndian)) + Data([0x00, 0xD8, 0x22, 0x00, 0x7D, 0x00])
        #expect(JSONTextEncoding.utf8(surrogate) == nil)
        #expect(String(decoding: NotificationV1.redactingPassword(in: surrogate), as: UTF8.self) == #"{"password":"[redacted]"}"#)
    }

    /// A hand-written body with single or curly quotes is not JSON, so the scan finds no key in it;
    /// one that may name a password is not kept at all, one that cannot is kept as sent.
    @Test(arguments: [
        "{'notification_type':'DID_RENEW','bid':'com.example.app','password':'s3cr3t-shared'}",
        "{\u{201C}PASSWORD\u{201D}: \u{201C}s3cr3t-shared\u{201D}}",
        #"{p\u0061ssword: "s3cr3t-shared"}"#,
    ])
    func aBodyThatIsNotJSONAndMayNameAPasswordIsNotKept(_ body: String) {
        #expect(Self.redacted(body) == #"{"password":"[redacted]"}"#)
    }

    @Test func aBodyThatIsNotJSONAndNamesNoPasswordIsKeptAsSent() {
        let body = "{'notification_type':'DID_RENEW','bid':'com.example.app'}"
        #expect(Self.redacted(body) == body)
    }

    @Test func theWordPasswordAsAValueOrInsideAStringIsLeftAlone() {
        let body = #"{"note":"password","hint":"say \"password\": here","password":"s3cret"}"#
        #expect(Self.redacted(body) == #"{"note":"password","hint":"say \"password\": here","password":"[redacted]"}"#)
    }
}
