extension ResponseBodyV2DecodedPayload {
    /// Reads a notification payload with `JSONScanner` (see ``SignedPayload/scan(_:)``).
    ///
    /// Only `data` is read this way, the object of every subscription notification; a `summary`,
    /// `externalPurchaseToken` or `appData` object sends the payload to `JSONDecoder`.
    static func scan(_ scanner: inout JSONScanner) throws(JSONScanner.Unexpected) -> Self {
        var payload = Self()
        var seen = JSONScanner.SeenFields()
        try scanner.readObject { scanner, key throws(JSONScanner.Unexpected) in
            switch key {
            case "notificationType": try seen.insert(0); payload.notificationType = try scanner.readOptional(NotificationType.self)
            case "subtype": try seen.insert(1); payload.subtype = try scanner.readOptional(NotificationSubtype.self)
            case "notificationUUID": try seen.insert(2); payload.notificationUUID = try scanner.readOptionalString()
            case "data": try seen.insert(3); payload.data = try scanner.readNull() ? nil : try NotificationData.scan(&scanner)
            case "version": try seen.insert(4); payload.version = try scanner.readOptionalString()
            case "signedDate": try seen.insert(5); payload.signedDate = try scanner.readOptionalDate()
            case "summary": try seen.insert(6); try scanner.readOnlyNull()
            case "externalPurchaseToken": try seen.insert(7); try scanner.readOnlyNull()
            case "appData": try seen.insert(8); try scanner.readOnlyNull()
            default: try scanner.skipValue()
            }
        }
        return payload
    }
}

extension JSONScanner {
    /// Consumes `null`; any other value is `Unexpected`.
    fileprivate mutating func readOnlyNull() throws(Unexpected) {
        guard try readNull() else { throw Unexpected() }
    }
}
