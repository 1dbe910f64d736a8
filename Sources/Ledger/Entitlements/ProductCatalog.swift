/// What each product grants: configuration maps product ids to entitlement ids (many to many).
public struct ProductCatalog: Sendable, Hashable {
    /// One product's configuration.
    public struct Product: Sendable, Hashable {
        public var entitlements: [String]
        /// For non-renewing subscriptions: how long a purchase gives access.
        public var durationDays: Int?

        /// Creates a product entry.
        public init(entitlements: [String], durationDays: Int? = nil) {
            self.entitlements = entitlements
            self.durationDays = durationDays
        }
    }

    public var products: [String: Product]

    /// Creates a catalog.
    public init(products: [String: Product] = [:]) {
        self.products = products
    }

    /// The configuration of a product, if any.
    public func product(_ id: String) -> Product? { products[id] }

    /// Every entitlement some product grants: the ones a manual grant may name.
    public var allEntitlements: Set<String> { Set(products.values.flatMap(\.entitlements)) }

    /// The entitlements a product grants (none for an unknown product).
    public func entitlements(of productId: String) -> [String] { products[productId]?.entitlements ?? [] }
}
