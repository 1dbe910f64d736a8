import EventStore
import Foundation

/// Decides a user's entitlements at a moment from their chains and grants: a pure function.
public struct EntitlementEvaluator: Sendable {
    public let catalog: ProductCatalog
    /// Whether sandbox chains grant entitlements (default yes, so App Review works). When not, a
    /// sandbox chain is still listed among the subscriptions and adds nothing to the entitlements.
    public let sandboxGrants: Bool

    /// Creates an evaluator.
    public init(catalog: ProductCatalog, sandboxGrants: Bool = true) {
        self.catalog = catalog
        self.sandboxGrants = sandboxGrants
    }

    /// Evaluates every chain and grant of `user` at `date`.
    public func evaluate(
        user: UserState,
        chains: [ChainState],
        at date: Date,
        asOf: Date? = nil,
        position: Int64
    ) -> UserEntitlements {
        let at = Timestamp.milliseconds(date)
        let chainEvaluator = ChainEvaluator(catalog: catalog)
        var subscriptions: [ChainEvaluation] = []
        var candidates: [String: [EntitlementStatus]] = [:]
        for chain in chains {
            guard let evaluation = chainEvaluator.evaluate(chain, at: date) else { continue }
            subscriptions.append(evaluation)
            // A sandbox chain that grants nothing never gave the user an entitlement, so it lists none
            // (it is still a subscription, with its own status).
            guard evaluation.environment != "Sandbox" || sandboxGrants else { continue }
            let current = Set(catalog.entitlements(of: evaluation.productId))
            // Entitlements once granted by an older product of the chain are listed, inactive (products
            // bought after `at` had granted nothing yet).
            var ever = current
            for transaction in chain.transactions(boughtBy: ChainEvaluator.knownBy(at)) {
                ever.formUnion(catalog.entitlements(of: transaction.productId))
            }
            for id in ever {
                guard current.contains(id) else {
                    // The chain moved to a product without it: report the last period that gave it.
                    if let past = Self.lastPeriod(granting: id, of: chain, at: at, catalog: catalog, evaluator: chainEvaluator) {
                        candidates[id, default: []].append(past)
                    }
                    continue
                }
                candidates[id, default: []].append(EntitlementStatus(
                    id: id,
                    active: evaluation.hasAccess,
                    status: evaluation.status.rawValue,
                    productId: evaluation.productId,
                    expiresAt: evaluation.expiresAt,
                    gracePeriodExpiresAt: evaluation.gracePeriodExpiresAt,
                    willRenew: Self.renews(id, evaluation, catalog: catalog),
                    renewsToProductId: evaluation.renewsToProductId,
                    originalTransactionId: evaluation.originalTransactionId,
                    environment: evaluation.environment,
                    ownership: evaluation.ownership,
                    purchasedAt: evaluation.purchasedAt,
                    revokedAt: evaluation.revokedAt,
                    revocationReason: evaluation.revocationReason,
                    source: .appStore
                ))
            }
        }
        for record in user.grants.values {
            let grant = record.grant
            guard let status = record.status(at: at) else { continue }
            candidates[grant.entitlement, default: []].append(EntitlementStatus(
                id: grant.entitlement,
                active: status == .active,
                status: status.rawValue,
                productId: nil,
                expiresAt: grant.expiresAt.map(ChainEvaluator.date),
                gracePeriodExpiresAt: nil,
                willRenew: false,
                renewsToProductId: nil,
                originalTransactionId: nil,
                environment: nil,
                ownership: nil,
                purchasedAt: ChainEvaluator.date(grant.at),
                // A revoke still to come at `at` is not shown, as a chain's later refund is not.
                revokedAt: status == .revoked ? record.revokedAt.map(ChainEvaluator.date) : nil,
                revocationReason: nil,
                source: .grant
            ))
        }
        let entitlements = candidates.keys.sorted().compactMap { id in
            candidates[id]?.max(by: Self.reportsBefore)
        }
        subscriptions.sort { $0.originalTransactionId < $1.originalTransactionId }
        return UserEntitlements(
            userId: user.userId, evaluatedAt: date, asOf: asOf,
            entitlements: entitlements, subscriptions: subscriptions, position: position
        )
    }

    /// Whether the chain's next period still gives entitlement `id`: the chain renews, and into a
    /// product that grants it. A pending downgrade to a product without it (premium to basic) ends
    /// it at the expiry even though the subscription renews.
    static func renews(_ id: String, _ evaluation: ChainEvaluation, catalog: ProductCatalog) -> Bool {
        guard evaluation.willRenew else { return false }
        guard let next = evaluation.renewsToProductId, next != evaluation.productId else { return true }
        return catalog.entitlements(of: next).contains(id)
    }

    /// The entry for an entitlement a chain gave in an earlier period only (its product changed to one
    /// without it): that period's product, end and revocation, never active and never renewing. A
    /// period ends at its expiry, its upgrade or the next period's purchase, whichever came first. Of
    /// the periods bought by `at` that gave it, the one that would govern among them.
    static func lastPeriod(
        granting id: String, of chain: ChainState, at: Int64, catalog: ProductCatalog, evaluator: ChainEvaluator
    ) -> EntitlementStatus? {
        let known = ChainEvaluator.knownBy(at)
        let granting = chain.transactions(boughtBy: known).filter { catalog.entitlements(of: $0.productId).contains(id) }
        guard let period = ChainState.latest(of: granting) else { return nil }
        let revocation = period.revocationDate.flatMap { $0 <= known ? $0 : nil }
        let upgraded = period.isUpgraded && revocation != nil
        let refunded = revocation != nil && !upgraded
        // It ended at the upgrade (Apple usually sends only the new transaction, so the old one may
        // carry no revocation), or when the next period of the chain began, whichever came first; a
        // refunded one shows its own term, as a refunded subscription does.
        let later = chain.transactions(boughtBy: known).filter {
            $0.transactionId != period.transactionId && ChainState.latest(of: [period, $0])?.transactionId == $0.transactionId
        }
        let next = refunded ? nil : later.map(\.purchaseDate).min()
        let expiry = evaluator.expiry(of: period)
        let cut = min(upgraded ? (revocation ?? Int64.max) : Int64.max, next ?? Int64.max)
        let end = cut == Int64.max ? expiry : min(expiry ?? Int64.max, cut)
        let status: ChainStatus = refunded ? (ChainEvaluator.isRevokedFromFamilySharing(period) ? .revoked : .refunded) : .expired
        return EntitlementStatus(
            id: id,
            active: false,
            status: status.rawValue,
            productId: period.productId,
            expiresAt: end.map(ChainEvaluator.date),
            gracePeriodExpiresAt: nil,
            willRenew: false,
            renewsToProductId: nil,
            originalTransactionId: chain.originalTransactionId,
            environment: period.environment,
            ownership: period.ownership == "FAMILY_SHARED" ? "family_shared" : "purchased",
            purchasedAt: ChainEvaluator.date(period.purchaseDate),
            revokedAt: refunded ? revocation.map(ChainEvaluator.date) : nil,
            revocationReason: refunded ? period.revocationReason : nil,
            source: .appStore
        )
    }

    /// Orders candidates so `max` picks the one to report: active first, then the one that ended last
    /// (at its expiry, or at its revocation if it was refunded or revoked before; no expiry, a
    /// lifetime purchase, counts as last), then the chain id; between grants, the earliest made, then
    /// one not revoked or revoked latest, then the latest expiry. A total order on every field a grant
    /// reports, so candidates that tie are identical and the view never depends on the order they
    /// were found in.
    static func reportsBefore(_ lhs: EntitlementStatus, _ rhs: EntitlementStatus) -> Bool {
        let (left, right) = (key(lhs), key(rhs))
        return left.first != right.first ? left.first < right.first : left.then < right.then
    }

    /// The ranking fields, in two tuples (Swift compares tuples of at most six).
    private static func key(_ status: EntitlementStatus) -> (first: (Int, Double, String, String), then: (Double, Double, Double)) {
        // What ended at a revocation (a refund, a revoked grant) ended then, not at its expiry.
        let expires = status.expiresAt?.timeIntervalSince1970 ?? .infinity
        let revoked = status.revokedAt?.timeIntervalSince1970 ?? .infinity
        return (
            (status.active ? 1 : 0, min(expires, revoked), status.originalTransactionId ?? "", status.source.rawValue),
            (-(status.purchasedAt?.timeIntervalSince1970 ?? 0), revoked, expires)
        )
    }
}
