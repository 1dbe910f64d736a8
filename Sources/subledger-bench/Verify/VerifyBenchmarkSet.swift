import AppStore
import AppStoreTesting
import Foundation

/// The tokens the verify benchmark runs on: distinct signed transactions and V2 notifications
/// minted by one Apple-like test PKI (P-384 root and intermediate, P-256 leaf).
struct VerifyBenchmarkSet: Sendable {
    static let bundleId = "com.example.subledger.bench"
    static let appAppleId: Int64 = 1_234_567_890

    let pki: TestPKI
    let transactions: [String]
    let notifications: [String]

    init(count: Int) throws {
        let pki = try TestPKI(name: "subledger bench", caCurve: .p384)
        // Fixed instants inside the PKI's validity, so the set is the same on every run.
        let base: Int64 = 1_760_000_000_000
        var transactions: [String] = []
        var notifications: [String] = []
        for index in 0..<count {
            let signedDate = AppStoreDate(millisecondsSince1970: base + Int64(index) * 1000)
            let transaction = JWSTransactionDecodedPayload(
                originalTransactionId: "2000000000000000",
                transactionId: String(2_000_000_000_000_001 + index),
                webOrderLineItemId: String(2_000_000_100_000_000 + index),
                bundleId: Self.bundleId,
                productId: "com.example.pro.monthly",
                subscriptionGroupIdentifier: "21752814",
                purchaseDate: signedDate,
                originalPurchaseDate: AppStoreDate(millisecondsSince1970: base),
                expiresDate: AppStoreDate(millisecondsSince1970: signedDate.millisecondsSince1970 + 2_592_000_000),
                quantity: 1,
                type: .autoRenewableSubscription,
                inAppOwnershipType: .purchased,
                signedDate: signedDate,
                environment: .sandbox,
                storefront: "USA",
                storefrontId: "143441",
                transactionReason: index == 0 ? .purchase : .renewal,
                currency: "USD",
                price: 9990,
                appTransactionId: "704897469903383919"
            )
            transactions.append(try pki.signTransaction(transaction))
            if index < min(count, 200) {
                notifications.append(
                    try pki.signNotification(
                        type: .didRenew,
                        bundleId: Self.bundleId,
                        appAppleId: Self.appAppleId,
                        environment: .sandbox,
                        transaction: transaction,
                        renewalInfo: JWSRenewalInfoDecodedPayload(
                            originalTransactionId: "2000000000000000",
                            autoRenewProductId: "com.example.pro.monthly",
                            productId: "com.example.pro.monthly",
                            autoRenewStatus: .on,
                            signedDate: signedDate,
                            environment: .sandbox,
                            renewalDate: transaction.expiresDate
                        ),
                        status: .active,
                        notificationUUID: UUID().uuidString.lowercased(),
                        signedDate: signedDate
                    )
                )
            }
        }
        self.pki = pki
        self.transactions = transactions
        self.notifications = notifications
    }

    /// A verifier trusting only this set's root.
    func makeVerifier(chainCacheCapacity: Int, checksNestedSignatures: Bool = false) throws -> SignedDataVerifier {
        var configuration = pki.verifierConfiguration(
            apps: [AppStoreApp(bundleId: Self.bundleId, appAppleId: Self.appAppleId, environments: [.sandbox])],
            chainCacheCapacity: chainCacheCapacity
        )
        configuration.checksNestedSignatures = checksNestedSignatures
        return try SignedDataVerifier(configuration: configuration)
    }

    /// Writes `transactions.txt` (one JWS per line), `root.der`, `root.pem` and `meta.json`.
    func export(to directory: URL) throws {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        try Data((transactions.joined(separator: "\n") + "\n").utf8).write(to: directory.appendingPathComponent("transactions.txt"))
        try Data(pki.rootDER).write(to: directory.appendingPathComponent("root.der"))
        try Data(pki.rootPEM.utf8).write(to: directory.appendingPathComponent("root.pem"))
        let meta: [String: Any] = ["bundle_id": Self.bundleId, "environment": "Sandbox", "app_apple_id": Self.appAppleId, "count": transactions.count]
        try JSONSerialization.data(withJSONObject: meta, options: [.sortedKeys, .prettyPrinted])
            .write(to: directory.appendingPathComponent("meta.json"))
    }
}
