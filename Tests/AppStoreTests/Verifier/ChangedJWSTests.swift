import AppStore
import AppStoreTesting
import Crypto
import Foundation
import Testing

/// A JWS changed on its way to the server (copied with a line end, wrapped, quoted, re-encoded in
/// base64's other alphabet) or signed in another form (a DER signature) is told what shows it,
/// where before it was told only that a segment is not base64url, or that the signature fails.
struct ChangedJWSTests {
    static let verifier = Result { try TestPKI() }.flatMap { pki in Result { (pki, try pki.makeVerifier(bundleId: GeneratedPKITests.bundleId)) } }

    static func refusal(_ jws: String) async throws -> AppStoreError? {
        let (_, verifier) = try Self.verifier.get()
        do {
            _ = try await verifier.verifyTransaction(jws, now: Date(timeIntervalSince1970: 1_735_000_000))
            return nil
        } catch let error as AppStoreError {
            return error
        }
    }

    static func signed() throws -> String {
        try Self.verifier.get().0.signTransaction(GeneratedPKITests.transaction())
    }

    @Test func aCharacterBase64URLDoesNotHaveIsNamedWithItsPlace() async throws {
        let jws = try Self.signed()
        let parts = jws.split(separator: ".").map(String.init)
        let header = parts[0].count
        let signingInput = parts[0] + "." + parts[1]
        let payload = String(parts[1])
        let lineBreak = "a line break (a JWS holds no whitespace: was it wrapped, or copied with its line end?)"
        let wrapped = parts[0] + "." + payload.prefix(76) + "\n" + payload.dropFirst(76) + "." + parts[2]
        let spaced = parts[0] + "." + payload.prefix(10) + " " + payload.dropFirst(10) + "." + parts[2]
        let escaped = signingInput + ".\\/" + parts[2]
        let cases: [(String, String)] = [
            (jws + "\n", "JWS signature is not base64url: it holds \(lineBreak) at character \(jws.count + 1) of the JWS"),
            (wrapped, "JWS payload is not base64url: it holds \(lineBreak) at character \(header + 78) of the JWS"),
            (spaced, "JWS payload is not base64url: it holds whitespace (a JWS holds none: was it wrapped, or copied with a space?) at character \(header + 12) of the JWS"),
            ("\"" + jws + "\"", "JWS header is not base64url: it holds a quote (was it copied with the quotes around it?) at character 1 of the JWS"),
            (escaped, "JWS signature is not base64url: it holds a backslash (was it copied from JSON with its escapes?) at character \(signingInput.count + 2) of the JWS"),
            (parts[0] + ".%%%." + parts[2], "JWS payload is not base64url: it holds '%' at character \(header + 2) of the JWS"),
            (parts[0] + ".ABCDE." + parts[2], "JWS payload is not base64url: its 5 characters are not a length or padding base64url text has"),
        ]
        for (changed, detail) in cases {
            let error = try #require(try await Self.refusal(changed))
            #expect(error.code == AppStoreError.Code.invalidFormat)
            #expect(error.message == detail)
        }
    }

    /// The signature covers the text as sent, so a JWS re-encoded with `+` and `/` fails it (unless
    /// only its signature held `-` or `_`, which decodes to the same bytes either way); a DER
    /// signature (70 to 72 bytes) is not ES256's 64. Each is said after the signature fails.
    @Test func aSignatureThatFailsSaysWhatShowsTheJWSWasChangedOrMadeAnotherWay() async throws {
        let jws = try Self.signed()
        // Base64 of ASCII text spells 62 and 63 only for a '>' or '?' (or DEL) at the end of a
        // three-byte group, so a payload needs one (or text beyond ASCII) for its signing input to
        // hold '-' or '_'. Converted there, the JWS no longer matches its signature.
        var payload = GeneratedPKITests.transaction()
        payload.offerIdentifier = "é?>é?>é?>"
        let spelt = try Self.verifier.get().0.signTransaction(payload)
        let signingInput = spelt.split(separator: ".")[0...1].joined(separator: ".")
        try #require(signingInput.contains("-") || signingInput.contains("_"))
        let standard = spelt.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        let converted = try #require(try await Self.refusal(standard))
        #expect(converted.code == .invalidSignature)
        #expect(converted.message == "ES256 signature of the transaction does not verify with the leaf certificate "
            + "(the JWS holds base64's '+' or '/' where base64url has '-' and '_': changed on the way, it no longer matches its signature)")

        let parts = jws.split(separator: ".").map(String.init)
        let raw = try #require(Data(base64Encoded: GeneratedPKITests.padded(parts[2])))
        let der = try P256.Signing.ECDSASignature(rawRepresentation: raw).derRepresentation
        let derJWS = parts[0] + "." + parts[1] + "." + JWSBuilder.base64URL(der)
        let refused = try #require(try await Self.refusal(derJWS))
        #expect(refused.code == .invalidSignature)
        #expect(refused.message == "ES256 signature of the transaction does not verify with the leaf certificate "
            + "(the signature is \(der.count) bytes, where ES256's is 64: r then s, not DER)")

        // A signature that is simply wrong says no more.
        let flipped = try #require(try await Self.refusal(GeneratedPKITests.flipByte(inSegment: 2, of: jws)))
        #expect(flipped.message == "ES256 signature of the transaction does not verify with the leaf certificate")
    }
}
