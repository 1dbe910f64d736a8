import AppStore
import AsyncHTTPClient
import EventStore
import Foundation
import Ledger
import Logging

/// Builds the ledger's collaborators from the configuration: the verifier (Apple Root CA - G3 plus any
/// configured roots), the verifyReceipt client and the domain settings.
enum LedgerFactory {
    /// The verifier: Apple Root CA - G3, the configured roots and apps. Made before anything is
    /// opened, so a root that cannot be read or an app the verifier refuses stops `serve` before a
    /// SQLite file is created.
    /// `auditing`: for `audit verify`, which checks facts already recorded, each app accepts Sandbox
    /// and (with its Apple ID) Production whatever its `environments` say now, so a setting changed
    /// since is not reported as a fact that no longer verifies.
    static func makeVerifier(_ configuration: SubledgerConfiguration, auditing: Bool = false) throws -> SignedDataVerifier {
        // The verifier refuses such an app too, in its own field names; said here in the file's.
        if let index = configuration.apps.firstIndex(where: { $0.environments.contains("Production") && $0.appAppleId == nil }) {
            throw ConfigurationError(
                key: "apple.apps[\(index)].app_apple_id",
                message: "is required when environments include Production (the app's Apple ID in App Store Connect; Apple requires checking it)"
            )
        }
        var roots = [try TrustAnchors.appleRootCAG3()]
        for path in configuration.trustedRoots {
            do {
                roots += try TrustAnchors.certificates(fromFile: path)
            } catch {
                throw ConfigurationError(key: "apple.trusted_roots", message: "cannot read \(path): \(error)")
            }
        }
        let apps = configuration.apps.map { app in
            var environments = Set(app.environments.map(AppStoreEnvironment.init(rawValue:)))
            if auditing {
                environments.insert(.sandbox)
                if app.appAppleId != nil { environments.insert(.production) }
            }
            return AppStoreApp(
                bundleId: app.bundleId,
                appAppleId: app.appAppleId,
                environments: environments,
                allowsUnsignedLocalEnvironments: app.allowUnsignedLocal
            )
        }
        do {
            return try SignedDataVerifier(
                configuration: .init(trustedRoots: roots, apps: apps, checksNestedSignatures: configuration.checkNestedSignatures)
            )
        } catch {
            throw ConfigurationError(key: "apple.apps", message: "\(error)")
        }
    }

    /// `httpClient` carries the verifyReceipt calls; the caller owns it (see `VerifyReceiptClient.makeHTTPClient()`).
    /// `verifier` is `makeVerifier(configuration)`'s, made before the database was opened.
    static func makeLedger(
        _ configuration: SubledgerConfiguration, verifier: SignedDataVerifier, store: any EventStore, httpClient: HTTPClient, logger: Logger
    ) -> SubscriptionLedger {
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
                hasOwnReceiptSecret: configuration.verifyReceiptSharedSecret != nil,
                // SQLite has one writer at a time, which waits for nothing inside its transaction:
                // a transfer's late lock cannot deadlock there, so running again would gain nothing.
                previousOwnerRestarts: store.dialect == .sqlite ? 0 : LedgerConfiguration.defaultPreviousOwnerRestarts
            ),
            logger: logger
        )
    }
}
