import AppStore
import Foundation

extension AppleFact {
    /// Decodes a stored fact, by the fast scanner when the text has the shape `JSONEncoder` writes and
    /// by `JSONDecoder` otherwise, so both paths give the same value or the same error.
    ///
    /// Folds never read `raw` (it stays in the log, byte for byte): without `includingRaw` it comes
    /// back empty, which spares copying most of each event's bytes.
    static func decode(from data: Data, decoder: JSONDecoder, includingRaw: Bool = true) throws -> AppleFact {
        if let fact = scanned(from: data, includingRaw: includingRaw) { return fact }
        var fact = try decoder.decode(AppleFact.self, fromUntrusted: data)
        if !includingRaw { fact.raw = "" }
        return fact
    }

    /// The fact read by `JSONScanner`, or nil if the text is not in the expected shape.
    static func scanned(from data: Data, includingRaw: Bool = true) -> AppleFact? {
        data.withUnsafeBytes { bytes -> AppleFact? in
            var scanner = JSONScanner(bytes)
            return try? scanner.readAppleFact(includingRaw: includingRaw)
        }
    }
}

extension JSONScanner {
    fileprivate mutating func readAppleFact(includingRaw: Bool) throws(Unexpected) -> AppleFact {
        var raw: String?
        var notificationType: String?
        var subtype: String?
        var notificationUUID: String?
        var bundleId: String?
        var userId: String?
        var transactions: [TransactionObservation]?
        var renewals: [RenewalObservation]?
        var known = KnownKeys()
        try readObject { scanner, key throws(Unexpected) in
            switch key {
            case "raw":
                try known.mark(0)
                if includingRaw {
                    raw = try scanner.readString()
                } else {
                    try scanner.skipString()
                    raw = ""
                }
            case "notificationType": try known.mark(1); notificationType = try scanner.readOptionalString()
            case "subtype": try known.mark(2); subtype = try scanner.readOptionalString()
            case "notificationUUID": try known.mark(3); notificationUUID = try scanner.readOptionalString()
            case "bundleId": try known.mark(4); bundleId = try scanner.readOptionalString()
            case "userId": try known.mark(5); userId = try scanner.readOptionalString()
            case "transactions":
                try known.mark(6)
                var list: [TransactionObservation] = []
                try scanner.readArray { scanner throws(Unexpected) in list.append(try scanner.readTransaction()) }
                transactions = list
            case "renewals":
                try known.mark(7)
                var list: [RenewalObservation] = []
                try scanner.readArray { scanner throws(Unexpected) in list.append(try scanner.readRenewal()) }
                renewals = list
            default: try scanner.skipValue()
            }
        }
        try finish()
        guard let raw, let transactions, let renewals else { throw Unexpected() }
        return AppleFact(
            raw: raw, notificationType: notificationType, subtype: subtype, notificationUUID: notificationUUID,
            bundleId: bundleId, userId: userId, transactions: transactions, renewals: renewals
        )
    }

    mutating func readTransaction() throws(Unexpected) -> TransactionObservation {
        var transactionId: String?
        var originalTransactionId: String?
        var productId: String?
        var bundleId: String?
        var type: String?
        var purchaseDate: Int64?
        var expiresDate: Int64?
        var revocationDate: Int64?
        var revocationReason: Int?
        var revocationType: String?
        var isUpgraded: Bool?
        var ownership: String?
        var environment: String?
        var appAccountToken: String?
        var offerType: Int?
        var assertedAt: Int64?
        var known = KnownKeys()
        try readObject { scanner, key throws(Unexpected) in
            switch key {
            case "transactionId": try known.mark(0); transactionId = try scanner.readString()
            case "originalTransactionId": try known.mark(1); originalTransactionId = try scanner.readString()
            case "productId": try known.mark(2); productId = try scanner.readString()
            case "bundleId": try known.mark(3); bundleId = try scanner.readOptionalString()
            case "type": try known.mark(4); type = try scanner.readString()
            case "purchaseDate": try known.mark(5); purchaseDate = try scanner.readInt64()
            case "expiresDate": try known.mark(6); expiresDate = try scanner.readOptionalInt64()
            case "revocationDate": try known.mark(7); revocationDate = try scanner.readOptionalInt64()
            case "revocationReason": try known.mark(8); revocationReason = try scanner.readOptionalInt()
            case "revocationType": try known.mark(9); revocationType = try scanner.readOptionalString()
            case "isUpgraded": try known.mark(10); isUpgraded = try scanner.readBool()
            case "ownership": try known.mark(11); ownership = try scanner.readString()
            case "environment": try known.mark(12); environment = try scanner.readString()
            case "appAccountToken": try known.mark(13); appAccountToken = try scanner.readOptionalString()
            case "offerType": try known.mark(14); offerType = try scanner.readOptionalInt()
            case "assertedAt": try known.mark(15); assertedAt = try scanner.readInt64()
            default: try scanner.skipValue()
            }
        }
        guard let transactionId, let originalTransactionId, let productId, let type, let purchaseDate,
              let isUpgraded, let ownership, let environment, let assertedAt else { throw Unexpected() }
        return TransactionObservation(
            transactionId: transactionId, originalTransactionId: originalTransactionId, productId: productId,
            bundleId: bundleId, type: type, purchaseDate: purchaseDate, expiresDate: expiresDate,
            revocationDate: revocationDate, revocationReason: revocationReason, revocationType: revocationType,
            isUpgraded: isUpgraded, ownership: ownership, environment: environment,
            appAccountToken: appAccountToken, offerType: offerType, assertedAt: assertedAt
        )
    }

    mutating func readRenewal() throws(Unexpected) -> RenewalObservation {
        var originalTransactionId: String?
        var autoRenewStatus: Bool?
        var autoRenewProductId: String?
        var productId: String?
        var isInBillingRetryPeriod: Bool?
        var gracePeriodExpiresDate: Int64?
        var expirationIntent: Int?
        var priceIncreaseStatus: Int?
        var environment: String?
        var assertedAt: Int64?
        var known = KnownKeys()
        try readObject { scanner, key throws(Unexpected) in
            switch key {
            case "originalTransactionId": try known.mark(0); originalTransactionId = try scanner.readString()
            case "autoRenewStatus": try known.mark(1); autoRenewStatus = try scanner.readOptionalBool()
            case "autoRenewProductId": try known.mark(2); autoRenewProductId = try scanner.readOptionalString()
            case "productId": try known.mark(3); productId = try scanner.readOptionalString()
            case "isInBillingRetryPeriod": try known.mark(4); isInBillingRetryPeriod = try scanner.readOptionalBool()
            case "gracePeriodExpiresDate": try known.mark(5); gracePeriodExpiresDate = try scanner.readOptionalInt64()
            case "expirationIntent": try known.mark(6); expirationIntent = try scanner.readOptionalInt()
            case "priceIncreaseStatus": try known.mark(7); priceIncreaseStatus = try scanner.readOptionalInt()
            case "environment": try known.mark(8); environment = try scanner.readOptionalString()
            case "assertedAt": try known.mark(9); assertedAt = try scanner.readInt64()
            default: try scanner.skipValue()
            }
        }
        guard let originalTransactionId, let assertedAt else { throw Unexpected() }
        return RenewalObservation(
            originalTransactionId: originalTransactionId, autoRenewStatus: autoRenewStatus,
            autoRenewProductId: autoRenewProductId, productId: productId,
            isInBillingRetryPeriod: isInBillingRetryPeriod, gracePeriodExpiresDate: gracePeriodExpiresDate,
            expirationIntent: expirationIntent, priceIncreaseStatus: priceIncreaseStatus,
            environment: environment, assertedAt: assertedAt
        )
    }
}
