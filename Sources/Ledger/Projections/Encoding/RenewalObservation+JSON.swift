extension RenewalObservation {
    /// The observation as `JSONEncoder` with `.sortedKeys` writes it (in chain documents and facts).
    func write(to writer: inout JSONWriter) {
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
