extension NotificationData {
    /// Reads a notification's `data` object with `JSONScanner`.
    static func scan(_ scanner: inout JSONScanner) throws(JSONScanner.Unexpected) -> Self {
        var data = Self()
        var seen = JSONScanner.SeenFields()
        try scanner.readObject { scanner, key throws(JSONScanner.Unexpected) in
            switch key {
            case "environment": try seen.insert(0); data.environment = try scanner.readOptional(AppStoreEnvironment.self)
            case "appAppleId": try seen.insert(1); data.appAppleId = try scanner.readOptionalInt64()
            case "bundleId": try seen.insert(2); data.bundleId = try scanner.readOptionalString()
            case "bundleVersion": try seen.insert(3); data.bundleVersion = try scanner.readOptionalString()
            case "signedTransactionInfo": try seen.insert(4); data.signedTransactionInfo = try scanner.readOptionalString()
            case "signedRenewalInfo": try seen.insert(5); data.signedRenewalInfo = try scanner.readOptionalString()
            case "status": try seen.insert(6); data.status = try scanner.readOptional(SubscriptionStatus.self)
            case "consumptionRequestReason": try seen.insert(7); data.consumptionRequestReason = try scanner.readOptional(ConsumptionRequestReason.self)
            default: try scanner.skipValue()
            }
        }
        return data
    }
}
