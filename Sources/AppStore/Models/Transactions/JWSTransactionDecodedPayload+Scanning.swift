extension JWSTransactionDecodedPayload {
    /// Reads a transaction payload with `JSONScanner` (see ``SignedPayload/scan(_:)``).
    static func scan(_ scanner: inout JSONScanner) throws(JSONScanner.Unexpected) -> Self {
        var payload = Self()
        var seen = JSONScanner.SeenFields()
        try scanner.readObject { scanner, key throws(JSONScanner.Unexpected) in
            switch key {
            case "originalTransactionId": try seen.insert(0); payload.originalTransactionId = try scanner.readOptionalString()
            case "transactionId": try seen.insert(1); payload.transactionId = try scanner.readOptionalString()
            case "webOrderLineItemId": try seen.insert(2); payload.webOrderLineItemId = try scanner.readOptionalString()
            case "bundleId": try seen.insert(3); payload.bundleId = try scanner.readOptionalString()
            case "productId": try seen.insert(4); payload.productId = try scanner.readOptionalString()
            case "subscriptionGroupIdentifier": try seen.insert(5); payload.subscriptionGroupIdentifier = try scanner.readOptionalString()
            case "purchaseDate": try seen.insert(6); payload.purchaseDate = try scanner.readOptionalDate()
            case "originalPurchaseDate": try seen.insert(7); payload.originalPurchaseDate = try scanner.readOptionalDate()
            case "expiresDate": try seen.insert(8); payload.expiresDate = try scanner.readOptionalDate()
            case "quantity": try seen.insert(9); payload.quantity = try scanner.readOptionalInt()
            case "type": try seen.insert(10); payload.type = try scanner.readOptional(TransactionType.self)
            case "appAccountToken": try seen.insert(11); payload.appAccountToken = try scanner.readOptionalString()
            case "inAppOwnershipType": try seen.insert(12); payload.inAppOwnershipType = try scanner.readOptional(InAppOwnershipType.self)
            case "signedDate": try seen.insert(13); payload.signedDate = try scanner.readOptionalDate()
            case "revocationReason": try seen.insert(14); payload.revocationReason = try scanner.readOptional(RevocationReason.self)
            case "revocationDate": try seen.insert(15); payload.revocationDate = try scanner.readOptionalDate()
            case "isUpgraded": try seen.insert(16); payload.isUpgraded = try scanner.readOptionalBool()
            case "offerType": try seen.insert(17); payload.offerType = try scanner.readOptional(OfferType.self)
            case "offerIdentifier": try seen.insert(18); payload.offerIdentifier = try scanner.readOptionalString()
            case "environment": try seen.insert(19); payload.environment = try scanner.readOptional(AppStoreEnvironment.self)
            case "storefront": try seen.insert(20); payload.storefront = try scanner.readOptionalString()
            case "storefrontId": try seen.insert(21); payload.storefrontId = try scanner.readOptionalString()
            case "transactionReason": try seen.insert(22); payload.transactionReason = try scanner.readOptional(TransactionReason.self)
            case "currency": try seen.insert(23); payload.currency = try scanner.readOptionalString()
            case "price": try seen.insert(24); payload.price = try scanner.readOptionalInt64()
            case "offerDiscountType": try seen.insert(25); payload.offerDiscountType = try scanner.readOptional(OfferDiscountType.self)
            case "appTransactionId": try seen.insert(26); payload.appTransactionId = try scanner.readOptionalString()
            case "offerPeriod": try seen.insert(27); payload.offerPeriod = try scanner.readOptionalString()
            case "revocationType": try seen.insert(28); payload.revocationType = try scanner.readOptional(RevocationType.self)
            case "revocationPercentage": try seen.insert(29); payload.revocationPercentage = try scanner.readOptionalInt()
            default: try scanner.skipValue()
            }
        }
        return payload
    }
}
