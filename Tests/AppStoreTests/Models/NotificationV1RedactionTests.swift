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

    @Test func aKeyWrittenWithEscapesIsReencodedWithoutTheSecret() throws {
        let body = #"{"pass\u0077ord":"s3cret","bid":"com.example.app"}"#
        let result = NotificationV1.redactingPassword(in: Data(body.utf8))
        #expect(!String(decoding: result, as: UTF8.self).contains("s3cret"))
        let decoded = try JSONDecoder().decode(NotificationV1.self, from: result)
        #expect(decoded.password == NotificationV1.redactedPassword)
        #expect(decoded.bid == "com.example.app")
    }

    @Test func theWordPasswordAsAValueOrInsideAStringIsLeftAlone() {
        let body = #"{"note":"password","hint":"say \"password\": here","password":"s3cret"}"#
        #expect(Self.redacted(body) == #"{"note":"password","hint":"say \"password\": here","password":"[redacted]"}"#)
    }
}
