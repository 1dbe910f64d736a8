import Logging
import Synchronization

/// Warns, once per product and process, when a recorded fact names a product that `products` does
/// not configure. Such a product grants no entitlement: a typo in `products` left paying users
/// without access, and nothing said so.
final class UnconfiguredProducts: Sendable {
    private let catalog: ProductCatalog
    /// The products already warned about; only ones Apple signed or verified reach it.
    private let warned = Mutex<Set<String>>([])

    init(catalog: ProductCatalog) {
        self.catalog = catalog
    }

    /// Warns about each product of `fact` the catalog lacks, unless it was warned about before.
    func check(_ fact: AppleFact, logger: Logger) {
        for transaction in fact.transactions where catalog.product(transaction.productId) == nil {
            let id = transaction.productId
            guard warned.withLock({ $0.insert(id).inserted }) else { continue }
            logger.warning(
                "a purchase names a product that products does not configure, so it grants no entitlement; add it to products if it should",
                metadata: ["product_id": "\(id)", "original_transaction_id": "\(transaction.originalTransactionId)"]
            )
        }
    }
}
