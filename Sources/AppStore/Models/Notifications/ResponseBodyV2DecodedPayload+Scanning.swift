extension ResponseBodyV2DecodedPayload {
    /// Reads a notification payload with `JSONScanner` (see ``SignedPayload/scan(_:)``).
    ///
    /// Only `data` is read this way, the object of every subscription notification; a `summary`,
    /// `externalPurchaseToken` or `appData` object sends the payload to `JSONDecoder`.
    static func scan(_ scanner: inout JSONScanner) throws(JSONScanner.Unexpected) -> Self {
        var payload = Self()
        try scanner.readObjectWithDistinctKeys { scanner, key throws(JSONScanner.Unexpected) in
            switch key {
            case "notificationType": payload.notificationType = try scanner.readOptional(NotificationType.self)
            case "subtype": payload.subtype = try scanner.readOptional(NotificationSubtype.self)
            case "notificationUUID": payload.notificationUUID = try scanner.readOptionalString()
            case "data": payload.data = try scanner.readNull() ? nil : try NotificationData.scan(&scanner)
            case "version": payload.version = try scanner.readOptionalString()
            case "signedDate": payload.signedDate = try scanner.readOptionalDate()
            case "summary", "externalPurchaseToken", "appData": try scanner.readOnlyNull()
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
