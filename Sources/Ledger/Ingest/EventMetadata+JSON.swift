import Foundation

extension EventMetadata {
    /// The metadata's JSON, identical to `JSONEncoder` with `.sortedKeys`: every event carries it.
    func encodedJSON() -> Data {
        var writer = JSONWriter(capacity: 256)
        writer.beginObject()
        writer.field("apiKey", apiKey)
        writer.field("receivedAt", receivedAt)
        writer.field("requestId", requestId)
        writer.field("source", source)
        if let verification {
            writer.key("verification")
            writer.beginObject()
            writer.field("effectiveTime", verification.effectiveTime)
            writer.field("environment", verification.environment)
            writer.field("leafFingerprint", verification.leafFingerprint)
            writer.field("signatureVerified", verification.signatureVerified)
            writer.endObject()
        }
        writer.endObject()
        return Data(writer.bytes)
    }
}
