extension TransactionObservation {
    /// The observation as `JSONEncoder` with `.sortedKeys` writes it (in chain documents and facts).
    func write(to writer: inout JSONWriter) {
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
