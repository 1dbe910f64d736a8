/// What a client's submission (a transaction or a receipt) did: the user's entitlements after it,
/// and whether its fact was new.
///
/// A resent submission is still answered with the view (a client may resend only to link), so the
/// duplicate flag is what tells it apart, in the ingest metrics for one.
public struct SubmissionResult: Sendable {
    /// The submitting user's entitlements once the fact and its links are committed.
    public var entitlements: UserEntitlements
    /// True when the fact was already recorded (its links are decided all the same).
    public var isDuplicate: Bool

    /// Creates a result.
    public init(entitlements: UserEntitlements, isDuplicate: Bool) {
        self.entitlements = entitlements
        self.isDuplicate = isDuplicate
    }
}
