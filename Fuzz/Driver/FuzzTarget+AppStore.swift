@testable import AppStore
import Foundation

extension FuzzTarget {
    /// The plain body reader must agree with `JSONDecoder` whenever it answers.
    static func notificationBody(_ body: Data) {
        guard let plain = ResponseBodyV2.plainSignedPayload(in: body) else { return }
        guard let decoded = try? JSONDecoder().decode(ResponseBodyV2.self, from: body) else {
            fatalError("plainSignedPayload read a body JSONDecoder refuses")
        }
        guard decoded.signedPayload == plain else {
            fatalError("plainSignedPayload read \(plain.debugDescription), JSONDecoder \(String(describing: decoded.signedPayload))")
        }
    }

    /// The fault scan names no fault in UTF-8 text Foundation parses but the two it marks as beyond
    /// Foundation (text with a NUL byte or a
    /// UTF-16 or UTF-32 byte order mark is another encoding to Foundation, and not scanned), and a
    /// fault's place is inside the input.
    static func jsonSyntax(_ text: Data) {
        // Foundation's decoder itself, as every untrusted body meets it (it has trapped on such input).
        _ = try? JSONDecoder().decode([String: Int].self, fromUntrusted: text)
        let fault = JSONSyntaxFault.find(in: text)
        if let fault {
            guard fault.offset >= 0, fault.offset <= text.count, fault.line >= 1, fault.column >= 1, fault.column <= fault.offset + 1 else {
                fatalError("a fault placed outside its input: \(fault) at offset \(fault.offset) of \(text.count)")
            }
        }
        guard !text.contains(0), !text.starts(with: [0xFE, 0xFF]), !text.starts(with: [0xFF, 0xFE]) else { return }
        // A comma before a closing bracket and a name given twice are faults Foundation lets pass.
        if let fault, !fault.isBeyondFoundation, (try? JSONSerialization.jsonObject(with: text, options: .fragmentsAllowed)) != nil {
            fatalError("a fault in text Foundation parses: \(fault)")
        }
    }

    /// Shape errors only: a compact JWS is split and decoded before any certificate is looked at.
    /// The memo is shared across inputs, as the verifier's is.
    static func jws(_ bytes: UnsafeRawBufferPointer) {
        let text = String(decoding: bytes, as: UTF8.self)
        _ = try? CompactJWS(text, headers: headerMemo)
        _ = try? CompactJWS(text, headers: nil)
    }

    private static let headerMemo = HeaderMemo(capacity: 4)

    /// Whatever `Base64` accepts, Foundation decodes to the same bytes once turned into padded base64.
    static func base64(_ bytes: UnsafeRawBufferPointer) {
        let decoded = Base64.decode(bytes.bindMemory(to: UInt8.self))
        guard let decoded else { return }
        var standard = String(decoding: bytes, as: UTF8.self)
            .replacingOccurrences(of: "-", with: "+")
            .replacingOccurrences(of: "_", with: "/")
        while standard.utf8.count % 4 != 0 { standard += "=" }
        guard let reference = Data(base64Encoded: standard) else {
            fatalError("Base64 accepted \(standard.debugDescription), which Foundation refuses")
        }
        guard Array(reference) == decoded else {
            fatalError("Base64 and Foundation decode \(standard.debugDescription) differently")
        }
    }

    /// A JWS payload of a type with a scanner (an AppTransaction has none): the scanner's value must
    /// be `JSONDecoder`'s.
    static func payload(_ bytes: UnsafeRawBufferPointer) {
        pick(bytes, [
            { agree(ResponseBodyV2DecodedPayload.scanned(from: $0), $0) },
            { agree(JWSTransactionDecodedPayload.scanned(from: $0), $0) },
            { agree(JWSRenewalInfoDecodedPayload.scanned(from: $0), $0) },
        ])
    }

    /// A receipt's DER, parsed as `POST /v1/apple/receipts` parses what the client sends.
    static func receipt(_ bytes: UnsafeRawBufferPointer) {
        _ = try? AppReceiptParser.parse(der: Array(bytes))
    }

    /// Redacting keeps JSON JSON, replaces every `password` member (any letter case) by the
    /// placeholder, and changes nothing else.
    static func redaction(_ bytes: UnsafeRawBufferPointer) {
        let body = Data(bytes)
        let redacted = NotificationV1.redactingPassword(in: body)
        guard !body.contains(0), let before = try? JSONSerialization.jsonObject(with: body, options: [.fragmentsAllowed]) else { return }
        guard let after = try? JSONSerialization.jsonObject(with: redacted, options: [.fragmentsAllowed]) else {
            fatalError("redaction turned JSON into text that is not JSON: \(String(decoding: redacted, as: UTF8.self).debugDescription)")
        }
        guard let expected = redactedTree(before) as? NSObject, expected.isEqual(after) else {
            // The last check in `redactingPassword` may replace the whole body by the placeholder object.
            if let object = after as? [String: Any], object.count == 1, object["password"] as? String == NotificationV1.redactedPassword {
                return
            }
            fatalError("redaction changed more than the password values of \(String(decoding: body, as: UTF8.self).debugDescription)")
        }
    }

    /// The tree with every `password` member's value replaced, as the byte scan should leave it.
    private static func redactedTree(_ value: Any) -> Any? {
        switch value {
        case let object as [String: Any]:
            var result: [String: Any] = [:]
            for (key, member) in object {
                if key.lowercased() == "password" {
                    result[key] = NotificationV1.redactedPassword
                } else {
                    guard let member = redactedTree(member) else { return nil }
                    result[key] = member
                }
            }
            return result
        case let array as [Any]:
            var result: [Any] = []
            for element in array {
                guard let element = redactedTree(element) else { return nil }
                result.append(element)
            }
            return result
        default:
            return value
        }
    }
}
