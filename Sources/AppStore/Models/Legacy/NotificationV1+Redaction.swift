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
    /// stays exact. A body that still decodes to another password afterwards (its key written with
    /// escapes) is re-encoded with the password replaced, its one departure from the text as sent.
    public static func redactingPassword(in body: Data) -> Data {
        let redacted = Data(PasswordRedaction.rewrite(Array(body), placeholder: redactedPassword))
        guard let decoded = try? JSONDecoder().decode(NotificationV1.self, from: redacted),
              let password = decoded.password, password != redactedPassword
        else { return redacted }
        return reencoded(body)
    }

    /// The body parsed and written again with the password replaced, keys sorted; only a placeholder
    /// object if even that fails, so a secret is never kept.
    private static func reencoded(_ body: Data) -> Data {
        let fallback = Data(#"{"password":"\#(redactedPassword)"}"#.utf8)
        guard var object = (try? JSONSerialization.jsonObject(with: body)) as? [String: Any] else { return fallback }
        object["password"] = redactedPassword
        return (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])) ?? fallback
    }
}
