import Logging
import Synchronization

/// Warns, once per product and process, when a recorded fact names a product that `products` does
/// not configure. Such a product grants no entitlement: a typo in `products` left paying users
/// without access, and nothing said so.
final class UnconfiguredProducts: Sendable {
    /// The most products warned about one by one. V1 bodies (checked by the shared secret only) and
    /// unsigned local data can name any product, so the set and the log stay bounded.
    static let limit = 1_000

    private let catalog: ProductCatalog
    /// The products already warned about.
    private let warned = Mutex<Set<String>>([])

    init(catalog: ProductCatalog) {
        self.catalog = catalog
    }

    /// Warns about each product of `fact` the catalog lacks, unless it was warned about before: a
    /// purchase's product, and the product a subscription will renew into (Apple's
    /// `autoRenewProductId`), which grants nothing from the renewal on.
    /// `logger` is made only then: most facts name configured products, and this is on every ingest.
    func check(_ fact: AppleFact, logger: @autoclosure () -> Logger) {
        for transaction in fact.transactions where catalog.product(transaction.productId) == nil {
            warn(
                transaction.productId, transaction.originalTransactionId, logger: logger(),
                "a purchase names a product that products does not configure, so it grants no entitlement; add it to products if it should"
            )
        }
        for renewal in fact.renewals {
            guard let target = renewal.autoRenewProductId, catalog.product(target) == nil else { continue }
            warn(
                target, renewal.originalTransactionId, logger: logger(),
                "a subscription will renew into a product that products does not configure, so it grants no entitlement once it renews; add it to products if it should"
            )
        }
    }

    private func warn(_ id: String, _ chain: String, logger: @autoclosure () -> Logger, _ message: Logger.Message) {
        let count: Int? = warned.withLock { warned in
            guard warned.count <= Self.limit, warned.insert(id).inserted else { return nil }
            return warned.count
        }
        guard let count else { return }
        if count > Self.limit {
            logger().warning("more than \(Self.limit) products that products does not configure; no more are named until a restart")
            return
        }
        logger().warning(message, metadata: ["product_id": "\(id)", "original_transaction_id": "\(chain)"])
    }
}
