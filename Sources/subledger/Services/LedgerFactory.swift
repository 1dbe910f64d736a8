import AppStore
import AsyncHTTPClient
import EventStore
import Foundation
import Ledger
import Logging

/// Builds the ledger's collaborators from the configuration: the verifier (Apple Root CA - G3 plus any
/// configured roots), the verifyReceipt client and the domain settings.
enum LedgerFactory {
    /// `httpClient` carries the verifyReceipt calls; the caller owns it (see `VerifyReceiptClient.makeHTTPClient()`).
    static func makeLedger(
        _ configuration: SubledgerConfiguration, store: any EventStore, httpClient: HTTPClient, logger: Logger
    ) throws -> SubscriptionLedger {
        var roots = [try TrustAnchors.appleRootCAG3()]
        for path in configuration.trustedRoots {
            do {
                roots += try TrustAnchors.certificates(fromFile: path)
            } catch {
                throw ConfigurationError(key: "apple.trusted_roots", message: "cannot read \(path): \(error)")
            }
        }
        let apps = configuration.apps.map { app in
            AppStoreApp(
                bundleId: app.bundleId,
                appAppleId: app.appAppleId,
                environments: Set(app.environments.map(AppStoreEnvironment.init(rawValue:))),
                allowsUnsignedLocalEnvironments: app.allowUnsignedLocal
            )
        }
        let verifier: SignedDataVerifier
        do {
            verifier = try SignedDataVerifier(
                configuration: .init(trustedRoots: roots, apps: apps, checksNestedSignatures: configuration.checkNestedSignatures)
            )
        } catch {
            throw ConfigurationError(key: "apple.apps", message: "\(error)")
        }
        let receipts = VerifyReceiptClient(
            configuration: .init(
                productionURL: configuration.verifyReceiptProductionURL,
                sandboxURL: configuration.verifyReceiptSandboxURL,
                sharedSecret: configuration.verifyReceiptSharedSecret ?? configuration.apps.lazy.compactMap(\.sharedSecret).first
            ),
            httpClient: httpClient,
            logger: logger
        )
        var secrets: [String: String] = [:]
        for app in configuration.apps {
            if let secret = app.sharedSecret { secrets[app.bundleId] = secret }
        }
        return SubscriptionLedger(
            store: store,
            verifier: verifier,
            receiptValidator: receipts,
            configuration: LedgerConfiguration(
                catalog: configuration.catalog,
                linkPolicy: configuration.linkPolicy,
                linkAppAccountToken: configuration.linkAppAccountToken,
                sandboxGrants: configuration.sandboxGrants,
                sharedSecrets: secrets,
                hasOwnReceiptSecret: configuration.verifyReceiptSharedSecret != nil
            ),
            logger: logger
        )
    }
}
