extension JWSRenewalInfoDecodedPayload {
    /// Reads a renewal info payload with `JSONScanner` (see ``SignedPayload/scan(_:)``).
    static func scan(_ scanner: inout JSONScanner) throws(JSONScanner.Unexpected) -> Self {
        var payload = Self()
        try scanner.readObjectWithDistinctKeys { scanner, key throws(JSONScanner.Unexpected) in
            switch key {
            case "expirationIntent": payload.expirationIntent = try scanner.readOptional(ExpirationIntent.self)
            case "originalTransactionId": payload.originalTransactionId = try scanner.readOptionalString()
            case "autoRenewProductId": payload.autoRenewProductId = try scanner.readOptionalString()
            case "productId": payload.productId = try scanner.readOptionalString()
            case "autoRenewStatus": payload.autoRenewStatus = try scanner.readOptional(AutoRenewStatus.self)
            case "isInBillingRetryPeriod": payload.isInBillingRetryPeriod = try scanner.readOptionalBool()
            case "priceIncreaseStatus": payload.priceIncreaseStatus = try scanner.readOptional(PriceIncreaseStatus.self)
            case "gracePeriodExpiresDate": payload.gracePeriodExpiresDate = try scanner.readOptionalDate()
            case "offerType": payload.offerType = try scanner.readOptional(OfferType.self)
            case "offerIdentifier": payload.offerIdentifier = try scanner.readOptionalString()
            case "signedDate": payload.signedDate = try scanner.readOptionalDate()
            case "environment": payload.environment = try scanner.readOptional(AppStoreEnvironment.self)
            case "recentSubscriptionStartDate": payload.recentSubscriptionStartDate = try scanner.readOptionalDate()
            case "renewalDate": payload.renewalDate = try scanner.readOptionalDate()
            case "currency": payload.currency = try scanner.readOptionalString()
            case "renewalPrice": payload.renewalPrice = try scanner.readOptionalInt64()
            case "offerDiscountType": payload.offerDiscountType = try scanner.readOptional(OfferDiscountType.self)
            case "eligibleWinBackOfferIds": payload.eligibleWinBackOfferIds = try scanner.readOptionalStrings()
            case "appAccountToken": payload.appAccountToken = try scanner.readOptionalString()
            case "appTransactionId": payload.appTransactionId = try scanner.readOptionalString()
            case "offerPeriod": payload.offerPeriod = try scanner.readOptionalString()
            default: try scanner.skipValue()
            }
        }
        return payload
    }
}
