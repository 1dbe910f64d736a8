import AppStore
import AppStoreTesting
import Foundation

/// A working directory set up for `serve` to take what a test PKI signs: its root as
/// `test-root.pem`, and a `subledger.yaml` with the app `com.example.app` (Sandbox), the product
/// `com.example.pro.monthly` granting `pro`, and the `backend` key of ``TestAPIKey``.
func writeTestPKIConfiguration(_ pki: TestPKI, in directory: URL) throws {
    try pki.rootPEM.write(to: directory.appendingPathComponent("test-root.pem"), atomically: true, encoding: .utf8)
    let configuration = """
        apple:
          trusted_roots: [test-root.pem]
          apps:
            - { bundle_id: com.example.app, environments: [Sandbox] }
        products:
          com.example.pro.monthly: { entitlements: [pro] }
        auth:
          keys:
            - { name: backend, scopes: [read, ingest], sha256: \(TestAPIKey.sha256) }

        """
    try configuration.write(to: directory.appendingPathComponent("subledger.yaml"), atomically: true, encoding: .utf8)
}

/// Starts `serve` on a free port in a directory set up by ``writeTestPKIConfiguration(_:in:)``,
/// with `environment` added (a `SUBLEDGER_DATABASE_URL`, say): the process and its base URL.
func serveTrustingTestPKI(
    _ pki: TestPKI, in directory: URL, environment: [String: String] = [:]
) async throws -> (server: SubledgerProcess, base: String) {
    try writeTestPKIConfiguration(pki, in: directory)
    let server = try SubledgerProcess(["serve"], in: directory, environment: environment.merging(["SUBLEDGER_HTTP_PORT": "0"]) { _, port in port })
    return (server, "http://127.0.0.1:\(try await server.waitForPort())")
}

extension TestPKI {
    /// A V2 SUBSCRIBED (INITIAL_BUY) body for `com.example.app`: a new subscription bought and
    /// signed at `date`.
    func subscribedBody(transactionId: String, at date: AppStoreDate) throws -> Data {
        try TestPKI.notificationBody(signedPayload: signNotification(
            type: .subscribed, subtype: .initialBuy, bundleId: "com.example.app",
            transaction: .testSubscription(transactionId: transactionId, purchaseDate: date), signedDate: date
        ))
    }
}
