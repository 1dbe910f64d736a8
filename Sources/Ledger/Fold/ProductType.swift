/// Apple's product type names, as they appear in transactions.
public enum ProductType {
    public static let autoRenewable = "Auto-Renewable Subscription"
    public static let nonRenewing = "Non-Renewing Subscription"
    public static let nonConsumable = "Non-Consumable"
    public static let consumable = "Consumable"

    /// The type to keep when two observations of one transaction disagree. A receipt or a V1
    /// notification states no type: their `Non-Consumable` is a fallback for "no expiry and no
    /// configured duration", so it gives way to any type Apple signed (an unfinished consumable
    /// listed in a receipt, a non-renewing subscription). Other disagreements come from the
    /// catalog's durations; the fixed order settles them. A function of the pair alone, commutative
    /// and associative, so the kept type never depends on arrival order.
    public static func preferred(_ lhs: String, _ rhs: String) -> String {
        func rank(_ type: String) -> Int {
            switch type {
            case nonConsumable: 0
            case nonRenewing: 1
            case consumable: 2
            case autoRenewable: 3
            default: 4
            }
        }
        return (rank(lhs), lhs) >= (rank(rhs), rhs) ? lhs : rhs
    }
}
