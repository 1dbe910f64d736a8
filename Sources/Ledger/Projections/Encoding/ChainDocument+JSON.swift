import Foundation

extension ChainDocument {
    /// The document's JSON, identical to `JSONEncoder` with `.sortedKeys` and several times faster:
    /// every ingest writes its chain's document and a replay writes every chain's.
    func encodedJSON() -> Data {
        var writer = JSONWriter(capacity: 256 + state.transactions.count * 420)
        writer.beginObject()
        writer.field("position", position)
        writer.key("state")
        state.write(to: &writer)
        writer.endObject()
        return Data(writer.bytes)
    }
}

extension ChainState {
    fileprivate func write(to writer: inout JSONWriter) {
        writer.beginObject()
        writer.field("originalTransactionId", originalTransactionId)
        if let renewal {
            writer.key("renewal")
            renewal.write(to: &writer) { $0.write(to: &$1) }
        }
        writer.key("transactions")
        writer.beginObject()
        for id in transactions.keys.sorted(by: { $0.utf8.lexicographicallyPrecedes($1.utf8) }) {
            guard let observed = transactions[id] else { continue }
            writer.key(id)
            observed.write(to: &writer) { $0.write(to: &$1) }
        }
        writer.endObject()
        writer.endObject()
    }
}

extension Observed {
    fileprivate func write(to writer: inout JSONWriter, value writeValue: (Value, inout JSONWriter) -> Void) {
        writer.beginObject()
        writer.field("assertedAt", assertedAt)
        writer.field("eventID", eventID)
        writer.key("value")
        writeValue(value, &writer)
        writer.endObject()
    }
}

extension TransactionObservation {
    fileprivate func write(to writer: inout JSONWriter) {
        writer.beginObject()
        writer.field("appAccountToken", appAccountToken)
        writer.field("assertedAt", assertedAt)
        writer.field("bundleId", bundleId)
        writer.field("environment", environment)
        writer.field("expiresDate", expiresDate)
        writer.field("isUpgraded", isUpgraded)
        writer.field("offerType", offerType)
        writer.field("originalTransactionId", originalTransactionId)
        writer.field("ownership", ownership)
        writer.field("productId", productId)
        writer.field("purchaseDate", purchaseDate)
        writer.field("revocationDate", revocationDate)
        writer.field("revocationReason", revocationReason)
        writer.field("revocationType", revocationType)
        writer.field("transactionId", transactionId)
        writer.field("type", type)
        writer.endObject()
    }
}

extension RenewalObservation {
    fileprivate func write(to writer: inout JSONWriter) {
        writer.beginObject()
        writer.field("assertedAt", assertedAt)
        writer.field("autoRenewProductId", autoRenewProductId)
        writer.field("autoRenewStatus", autoRenewStatus)
        writer.field("environment", environment)
        writer.field("expirationIntent", expirationIntent)
        writer.field("gracePeriodExpiresDate", gracePeriodExpiresDate)
        writer.field("isInBillingRetryPeriod", isInBillingRetryPeriod)
        writer.field("originalTransactionId", originalTransactionId)
        writer.field("priceIncreaseStatus", priceIncreaseStatus)
        writer.field("productId", productId)
        writer.endObject()
    }
}
