import Foundation

/// A decoded JWS payload that passed verification, with the facts of that verification.
///
/// Holding one means the payload's chain, signature and app/environment claims were accepted
/// (or, if ``VerificationFacts/isSignatureVerified`` is false, that unsigned local data was allowed).
public struct VerifiedSignedData<Payload: Sendable>: Sendable {
    /// The decoded payload.
    public var payload: Payload
    /// The payload exactly as signed (JSON bytes), including fields this library does not model.
    /// - Why: store or print the original; re-encoding ``payload`` would drop unknown fields.
    public var payloadJSON: Data
    /// How the payload was verified.
    public var facts: VerificationFacts

    /// Creates a result by value.
    /// - Why: lets fakes in other targets' tests return verified data without signing anything.
    public init(payload: Payload, payloadJSON: Data, facts: VerificationFacts) {
        self.payload = payload
        self.payloadJSON = payloadJSON
        self.facts = facts
    }
}
