import Crypto
import Foundation

/// Builds compact JWS by hand from certificates and a key, for chains `TestPKI` cannot express
/// (Apple's own test certificates, real Apple chains with a junk signature).
enum JWSBuilder {
    static func base64URL(_ data: some DataProtocol) -> String {
        Data(data).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    /// A JWS whose header carries `x5c` (DER certificates) and `alg`, signed by `key` or with 64 zero bytes.
    static func make(x5c: [[UInt8]], payload: String, key: P256.Signing.PrivateKey? = nil, alg: String = "ES256") throws -> String {
        let certificates = x5c.map { "\"\(Data($0).base64EncodedString())\"" }.joined(separator: ",")
        let header = "{\"alg\":\"\(alg)\",\"x5c\":[\(certificates)]}"
        let input = base64URL(Data(header.utf8)) + "." + base64URL(Data(payload.utf8))
        let signature = try key.map { try $0.signature(for: Data(input.utf8)).rawRepresentation } ?? Data(count: 64)
        return input + "." + base64URL(signature)
    }

    /// DER bytes of the first certificate in a PEM file.
    static func der(fromPEM text: String) throws -> [UInt8] {
        // Apple's PEM files start with OpenSSL's text dump; keep only the BEGIN/END block.
        let lines = text.components(separatedBy: "\n")
        let body = lines
            .drop(while: { !$0.hasPrefix("-----BEGIN") })
            .dropFirst()
            .prefix(while: { !$0.hasPrefix("-----END") })
            .joined()
        guard let data = Data(base64Encoded: body) else {
            throw CocoaError(.fileReadCorruptFile)
        }
        return Array(data)
    }
}
