extension NotificationData {
    /// Reads a notification's `data` object with `JSONScanner`.
    static func scan(_ scanner: inout JSONScanner) throws(JSONScanner.Unexpected) -> Self {
        var data = Self()
        try scanner.readObjectWithDistinctKeys { scanner, key throws(JSONScanner.Unexpected) in
            switch key {
            case "environment": data.environment = try scanner.readOptional(AppStoreEnvironment.self)
            case "appAppleId": data.appAppleId = try scanner.readOptionalInt64()
            case "bundleId": data.bundleId = try scanner.readOptionalString()
            case "bundleVersion": data.bundleVersion = try scanner.readOptionalString()
            case "signedTransactionInfo": data.signedTransactionInfo = try scanner.readOptionalString()
            case "signedRenewalInfo": data.signedRenewalInfo = try scanner.readOptionalString()
            case "status": data.status = try scanner.readOptional(SubscriptionStatus.self)
            case "consumptionRequestReason": data.consumptionRequestReason = try scanner.readOptional(ConsumptionRequestReason.self)
            default: try scanner.skipValue()
            }
        }
        return data
    }
}
