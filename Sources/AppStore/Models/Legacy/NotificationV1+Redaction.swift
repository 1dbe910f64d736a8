import Foundation

extension NotificationV1 {
    /// What a redacted body holds where its `password` was.
    public static let redactedPassword = "[redacted]"

    /// The body with the value of every `password` member replaced by ``redactedPassword`` and every
    /// other byte as sent.
    ///
    /// A V1 notification carries the app's shared secret in `password`. A ledger keeps bodies forever
    /// and serves them to anyone who may read events, so the secret must go before a body is stored,
    /// as an event or as a rejection. The bytes are rewritten in place so the rest of Apple's text
    /// stays exact. A body with a NUL byte (UTF-16 or UTF-32, which the decoder also reads) is
    /// converted to UTF-8 first, its one departure from the bytes as sent, or replaced by a
    /// placeholder object when it is not JSON at all; so is UTF-8 text that is not JSON and could
    /// name a password (its quotes may not be JSON's, so the scan cannot find the key).
    public static func redactingPassword(in body: Data) -> Data {
        let redacted = body.contains(0) ? reencoded(body) : rewritten(body)
        // A last check with the decoder the ledger reads bodies with: no password but the placeholder.
        if let decoded = try? JSONDecoder().decode(NotificationV1.self, fromUntrusted: redacted),
           let password = decoded.password, password != redactedPassword {
            return placeholder
        }
        // Text that is not JSON (a body hand-written with single or curly quotes) has no strings the
        // scan can find a key in; if it may name a password at all, none of it is kept.
        if (try? JSONSerialization.jsonObject(with: redacted, options: .fragmentsAllowed)) == nil, mayNamePassword(redacted) {
            return placeholder
        }
        return redacted
    }

    /// Whether `text` spells `password` in any letter case, or holds a `\u` escape that could: a
    /// body that does not cannot carry the shared secret under its key.
    public static func mayNamePassword(_ text: Data) -> Bool {
        let lowered = text.map(PasswordRedaction.asciiLowercased)
        return lowered.firstRange(of: Array("password".utf8)) != nil || lowered.firstRange(of: Array("\\u".utf8)) != nil
    }

    private static var placeholder: Data { Data(#"{"password":"\#(redactedPassword)"}"#.utf8) }

    private static func rewritten(_ body: Data) -> Data {
        Data(PasswordRedaction.rewrite(Array(body), placeholder: redactedPassword))
    }

    /// A body with a NUL byte: UTF-16 or UTF-32 text converted to UTF-8 as it is, then redacted; else
    /// (UTF-8 with a NUL, or not valid in its encoding) parsed and written again as UTF-8, keys
    /// sorted, then redacted, or the placeholder object if it does not parse, so a secret is never kept.
    private static func reencoded(_ body: Data) -> Data {
        if JSONTextEncoding.nonUTF8(of: body) != nil, let text = JSONTextEncoding.utf8(body), !text.contains(0) {
            return rewritten(text)
        }
        guard let object = try? JSONSerialization.jsonObject(with: body),
              let utf8 = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])
        else { return placeholder }
        return rewritten(utf8)
    }
}
