extension JWSRenewalInfoDecodedPayload {
    /// Reads a renewal info payload with `JSONScanner` (see ``SignedPayload/scan(_:)``).
    static func scan(_ scanner: inout JSONScanner) throws(JSONScanner.Unexpected) -> Self {
        var payload = Self()
        var seen = JSONScanner.SeenFields()
        try scanner.readObject { scanner, key throws(JSONScanner.Unexpected) in
            switch key {
            case "expirationIntent": try seen.insert(0); payload.expirationIntent = try scanner.readOptional(ExpirationIntent.self)
            case "originalTransactionId": try seen.insert(1); payload.originalTransactionId = try scanner.readOptionalString()
            case "autoRenewProductId": try seen.insert(2); payload.autoRenewProductId = try scanner.readOptionalString()
            case "productId": try seen.insert(3); payload.productId = try scanner.readOptionalString()
            case "autoRenewStatus": try seen.insert(4); payload.autoRenewStatus = try scanner.readOptional(AutoRenewStatus.self)
            case "isInBillingRetryPeriod": try seen.insert(5); payload.isInBillingRetryPeriod = try scanner.readOptionalBool()
            case "priceIncreaseStatus": try seen.insert(6); payload.priceIncreaseStatus = try scanner.readOptional(PriceIncreaseStatus.self)
            case "gracePeriodExpiresDate": try seen.insert(7); payload.gracePeriodExpiresDate = try scanner.readOptionalDate()
            case "offerType": try seen.insert(8); payload.offerType = try scanner.readOptional(OfferType.self)
            case "offerIdentifier": try seen.insert(9); payload.offerIdentifier = try scanner.readOptionalString()
            case "signedDate": try seen.insert(10); payload.signedDate = try scanner.readOptionalDate()
            case "environment": try seen.insert(11); payload.environment = try scanner.readOptional(AppStoreEnvironment.self)
            case "recentSubscriptionStartDate": try seen.insert(12); payload.recentSubscriptionStartDate = try scanner.readOptionalDate()
            case "renewalDate": try seen.insert(13); payload.renewalDate = try scanner.readOptionalDate()
            case "currency": try seen.insert(14); payload.currency = try scanner.readOptionalString()
            case "renewalPrice": try seen.insert(15); payload.renewalPrice = try scanner.readOptionalInt64()
            case "offerDiscountType": try seen.insert(16); payload.offerDiscountType = try scanner.readOptional(OfferDiscountType.self)
            case "eligibleWinBackOfferIds": try seen.insert(17); payload.eligibleWinBackOfferIds = try scanner.readOptionalStrings()
            case "appAccountToken": try seen.insert(18); payload.appAccountToken = try scanner.readOptionalString()
            case "appTransactionId": try seen.insert(19); payload.appTransactionId = try scanner.readOptionalString()
            case "offerPeriod": try seen.insert(20); payload.offerPeriod = try scanner.readOptionalString()
            default: try scanner.skipValue()
            }
        }
        return payload
    }
}
