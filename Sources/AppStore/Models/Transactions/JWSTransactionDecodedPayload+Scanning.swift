extension JWSTransactionDecodedPayload {
    /// Reads a transaction payload with `JSONScanner` (see ``SignedPayload/scan(_:)``).
    static func scan(_ scanner: inout JSONScanner) throws(JSONScanner.Unexpected) -> Self {
        var payload = Self()
        try scanner.readObjectWithDistinctKeys { scanner, key throws(JSONScanner.Unexpected) in
            switch key {
            case "originalTransactionId": payload.originalTransactionId = try scanner.readOptionalString()
            case "transactionId": payload.transactionId = try scanner.readOptionalString()
            case "webOrderLineItemId": payload.webOrderLineItemId = try scanner.readOptionalString()
            case "bundleId": payload.bundleId = try scanner.readOptionalString()
            case "productId": payload.productId = try scanner.readOptionalString()
            case "subscriptionGroupIdentifier": payload.subscriptionGroupIdentifier = try scanner.readOptionalString()
            case "purchaseDate": payload.purchaseDate = try scanner.readOptionalDate()
            case "originalPurchaseDate": payload.originalPurchaseDate = try scanner.readOptionalDate()
            case "expiresDate": payload.expiresDate = try scanner.readOptionalDate()
            case "quantity": payload.quantity = try scanner.readOptionalInt()
            case "type": payload.type = try scanner.readOptional(TransactionType.self)
            case "appAccountToken": payload.appAccountToken = try scanner.readOptionalString()
            case "inAppOwnershipType": payload.inAppOwnershipType = try scanner.readOptional(InAppOwnershipType.self)
            case "signedDate": payload.signedDate = try scanner.readOptionalDate()
            case "revocationReason": payload.revocationReason = try scanner.readOptional(RevocationReason.self)
            case "revocationDate": payload.revocationDate = try scanner.readOptionalDate()
            case "isUpgraded": payload.isUpgraded = try scanner.readOptionalBool()
            case "offerType": payload.offerType = try scanner.readOptional(OfferType.self)
            case "offerIdentifier": payload.offerIdentifier = try scanner.readOptionalString()
            case "environment": payload.environment = try scanner.readOptional(AppStoreEnvironment.self)
            case "storefront": payload.storefront = try scanner.readOptionalString()
            case "storefrontId": payload.storefrontId = try scanner.readOptionalString()
            case "transactionReason": payload.transactionReason = try scanner.readOptional(TransactionReason.self)
            case "currency": payload.currency = try scanner.readOptionalString()
            case "price": payload.price = try scanner.readOptionalInt64()
            case "offerDiscountType": payload.offerDiscountType = try scanner.readOptional(OfferDiscountType.self)
            case "appTransactionId": payload.appTransactionId = try scanner.readOptionalString()
            case "offerPeriod": payload.offerPeriod = try scanner.readOptionalString()
            case "revocationType": payload.revocationType = try scanner.readOptional(RevocationType.self)
            case "revocationPercentage": payload.revocationPercentage = try scanner.readOptionalInt()
            default: try scanner.skipValue()
            }
        }
        return payload
    }
}
