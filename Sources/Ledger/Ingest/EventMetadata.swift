import AppStore
import EventStore
import Foundation

/// The metadata stored with each event: when and where it arrived and how it was verified.
struct EventMetadata: Codable, Sendable {
    struct Verification: Codable, Sendable {
        var leafFingerprint: String?
        var effectiveTime: Int64
        var environment: String
        var signatureVerified: Bool
    }

    var receivedAt: Int64
    var source: String
    var requestId: String?
    /// The API key's name, for what a backend submitted or an operator granted.
    var apiKey: String?
    var verification: Verification?

    init(receivedAt: Date, context: IngestContext, facts: VerificationFacts? = nil) {
        self.receivedAt = Timestamp.milliseconds(receivedAt)
        self.source = context.source
        self.requestId = context.requestID
        self.apiKey = context.apiKey
        self.verification = facts.map {
            Verification(
                leafFingerprint: $0.leafCertificateFingerprint,
                effectiveTime: Timestamp.milliseconds($0.effectiveDate),
                environment: $0.environment.rawValue,
                signatureVerified: $0.isSignatureVerified
            )
        }
    }
}
