import Crypto
import Foundation
import X509

/// Verifies App Store signed data (transactions, renewal infos, AppTransactions, V2 notifications) and decodes it.
///
/// Everything subledger trusts from Apple passes through here. For each compact JWS it checks, in
/// order: shape and size (`invalid_format`, `input_too_large`), `alg` = ES256, an `x5c` of exactly
/// three certificates of which only the leaf and intermediate are used, the RFC 5280 path from
/// them to a *configured* root with Apple's marker extensions at the payload's signed date, the
/// ES256 signature over `header.payload` (for a JWS nested in a V2 notification, by default the
/// notification's signature, which covers it), and finally the payload's bundle id, Apple id and
/// environment against the configured apps. Unsigned `Xcode`/`LocalTesting` data is accepted only
/// for apps that enable it, and marked unverified.
///
/// Validated chains are cached (see ``Configuration/chainCacheCapacity``), so verifying many JWS
/// from the same Apple leaf costs one P-256 signature check each (none for a nested JWS whose
/// notification's signature covers it). Thread-safe; share one instance.
/// Time is never read from the system clock: callers pass `now`, used only for payloads without a
/// signed date.
public final class SignedDataVerifier: Sendable {
    /// The configuration this verifier was built with.
    public let configuration: Configuration
    private let appsByBundleId: [String: AppStoreApp]
    private let chains: ChainValidator
    private let headers: HeaderMemo?

    /// Creates a verifier, rejecting unusable configurations with `invalid_configuration`.
    /// - Why: a deployment builds one at startup and shares it.
    public init(configuration: Configuration) throws {
        guard !configuration.trustedRoots.isEmpty else {
            throw AppStoreError(.invalidConfiguration, "no trusted root certificate configured")
        }
        guard configuration.chainCacheCapacity >= 0, configuration.maximumJWSSize > 0 else {
            throw AppStoreError(.invalidConfiguration, "chain cache capacity and maximum JWS size must not be negative")
        }
        var apps: [String: AppStoreApp] = [:]
        for app in configuration.apps {
            guard apps[app.bundleId] == nil else {
                throw AppStoreError(.invalidConfiguration, "app \(app.bundleId) is configured twice")
            }
            if app.environments.contains(.production), app.appAppleId == nil {
                throw AppStoreError(
                    .invalidConfiguration,
                    "app \(app.bundleId) accepts Production but has no appAppleId (Apple requires checking it)"
                )
            }
            apps[app.bundleId] = app
        }
        self.configuration = configuration
        self.appsByBundleId = apps
        self.headers = configuration.chainCacheCapacity > 0 ? HeaderMemo(capacity: min(configuration.chainCacheCapacity, 16)) : nil
        self.chains = ChainValidator(
            roots: CertificateStore(configuration.trustedRoots),
            cache: configuration.chainCacheCapacity > 0 ? ValidatedChainCache(capacity: configuration.chainCacheCapacity) : nil
        )
    }

    /// Creates a verifier trusting the bundled Apple Root CA - G3 for `apps`.
    /// - Why: the production setup in one line.
    public convenience init(apps: [AppStoreApp]) throws {
        try self.init(configuration: .appleDefault(apps: apps))
    }

    // MARK: Public entry points

    /// Verifies a signed transaction (`signedTransactionInfo`, `JWSTransaction`).
    /// - Why: the input of every purchase the ledger records.
    public func verifyTransaction(_ jws: String, now: Date) async throws -> VerifiedSignedData<JWSTransactionDecodedPayload> {
        try await verifyTransaction(jws, now: now, covered: false)
    }

    private func verifyTransaction(_ jws: String, now: Date, covered: Bool) async throws -> VerifiedSignedData<JWSTransactionDecodedPayload> {
        try await verify(jws, as: JWSTransactionDecodedPayload.self, now: now, covered: covered) { payload, _ in
            try self.app(forBundleId: payload.bundleId, kind: JWSTransactionDecodedPayload.kind)
        }
    }

    /// Verifies a signed renewal info. It has no bundle id: pass the app's when known, else any configured app accepting its environment is enough.
    /// - Why: renewal infos come nested in notifications or from the App Store Server API for a known app.
    public func verifyRenewalInfo(_ jws: String, bundleId: String? = nil, now: Date) async throws -> VerifiedSignedData<JWSRenewalInfoDecodedPayload> {
        try await verifyRenewalInfo(jws, bundleId: bundleId, now: now, covered: false)
    }

    private func verifyRenewalInfo(
        _ jws: String, bundleId: String?, now: Date, covered: Bool
    ) async throws -> VerifiedSignedData<JWSRenewalInfoDecodedPayload> {
        try await verify(jws, as: JWSRenewalInfoDecodedPayload.self, now: now, covered: covered) { payload, environment in
            if let bundleId {
                return try self.app(forBundleId: bundleId, kind: JWSRenewalInfoDecodedPayload.kind)
            }
            guard let environment, let app = self.configuration.apps.first(where: { $0.accepts(environment) }) else {
                throw AppStoreError(
                    .environmentNotAccepted,
                    "renewal info environment \(environment?.rawValue ?? "(missing)") is not accepted for any configured app"
                )
            }
            return app
        }
    }

    /// Verifies a signed AppTransaction; its effective time is `receiptCreationDate`.
    /// - Why: app-level purchase proof sent by the client app.
    public func verifyAppTransaction(_ jws: String, now: Date) async throws -> VerifiedSignedData<AppTransactionDecodedPayload> {
        try await verifyAppTransaction(jws, now: now, covered: false)
    }

    private func verifyAppTransaction(_ jws: String, now: Date, covered: Bool) async throws -> VerifiedSignedData<AppTransactionDecodedPayload> {
        try await verify(jws, as: AppTransactionDecodedPayload.self, now: now, covered: covered) { payload, _ in
            try self.app(forBundleId: payload.bundleId, kind: AppTransactionDecodedPayload.kind)
        }
    }

    /// Verifies a V2 notification's `signedPayload` and the signed transaction, renewal info and AppTransaction nested in it.
    ///
    /// The nested JWS are checked like top-level ones (header, chain, claims, and consistency with
    /// the notification), except that their own signatures are checked only when
    /// ``Configuration/checksNestedSignatures`` is set: the notification's signature covers them.
    /// - Why: the entry point of the App Store Server Notifications webhook.
    public func verifyNotification(signedPayload jws: String, now: Date) async throws -> VerifiedNotification {
        var app: AppStoreApp?
        let outer = try await verify(jws, as: ResponseBodyV2DecodedPayload.self, now: now, covered: false) { payload, _ in
            let resolved = try self.app(forBundleId: payload.claimedBundleId, kind: ResponseBodyV2DecodedPayload.kind)
            app = resolved
            return resolved
        }
        let environment = outer.facts.environment
        guard let app else {
            throw AppStoreError(.unknownApp, "notification names no configured app")
        }
        var result = VerifiedNotification(notification: outer)
        let covered = outer.facts.isSignatureVerified && !configuration.checksNestedSignatures
        if let signed = outer.payload.data?.signedTransactionInfo {
            let transaction = try await verifyTransaction(signed, now: now, covered: covered)
            try Self.expectConsistent(transaction.payload.bundleId, app.bundleId, field: "signedTransactionInfo bundleId")
            try Self.expectConsistent(transaction.facts.environment, environment, field: "signedTransactionInfo environment")
            result.transaction = transaction
        }
        if let signed = outer.payload.data?.signedRenewalInfo {
            let renewalInfo = try await verifyRenewalInfo(signed, bundleId: app.bundleId, now: now, covered: covered)
            try Self.expectConsistent(renewalInfo.facts.environment, environment, field: "signedRenewalInfo environment")
            result.renewalInfo = renewalInfo
        }
        if let signed = outer.payload.appData?.signedAppTransactionInfo {
            let appTransaction = try await verifyAppTransaction(signed, now: now, covered: covered)
            try Self.expectConsistent(appTransaction.payload.bundleId, app.bundleId, field: "signedAppTransactionInfo bundleId")
            try Self.expectConsistent(appTransaction.facts.environment, environment, field: "signedAppTransactionInfo environment")
            result.appTransaction = appTransaction
        }
        return result
    }

    /// Verifies the body Apple POSTs to the notification webhook (`{"signedPayload": "..."}`).
    /// - Why: lets the HTTP layer hand over the raw body; non-JSON or a missing field is `malformed_body`
    ///   (the body itself is wrong), while a `signedPayload` that is not a JWS is `invalid_format`.
    public func verifyNotificationBody(_ body: Data, now: Date) async throws -> VerifiedNotification {
        guard body.count <= configuration.maximumJWSSize + 1024 else {
            throw AppStoreError(
                .inputTooLarge,
                "notification body is \(body.count) bytes, the maximum is \(configuration.maximumJWSSize + 1024) (\(configuration.maximumJWSSize) for the signed payload, 1024 for the JSON around it)"
            )
        }
        guard !body.isEmpty else {
            throw AppStoreError(.malformedBody, "notification body is empty; Apple posts a JSON object with a signedPayload string")
        }
        let envelope: ResponseBodyV2
        if let plain = ResponseBodyV2.plainSignedPayload(in: body) {
            envelope = ResponseBodyV2(signedPayload: plain)
        } else {
            do {
                envelope = try JSONDecoder().decode(ResponseBodyV2.self, fromUntrusted: body)
            } catch {
                // Every failure is scanned (only then), and text that is not JSON is told so first,
                // as client bodies are: a field's fault in it (`{"signedPayload":5,}`) would be fixed
                // only to meet the comma next. Text read leniently as another kind of value is told both.
                let wrongKind = (error as? DecodingError)?.isWrongKindAtTopLevel ?? false || JSONSyntaxFault.opensOtherThanObject(body)
                let said = switch JSONSyntaxFault.findAccepting(body) {
                case let fault? where wrongKind: "must be a JSON object with a signedPayload string, and the text is not valid JSON: \(fault)"
                case let fault?: "is not valid JSON: \(fault)"
                case nil: "is not a JSON object with a signedPayload string"
                }
                throw AppStoreError(.malformedBody, "notification body \(said)")
            }
            // The body is kept as sent, so all of it must be JSON that reads the same to any reader:
            // the decoder checks only `signedPayload`, and lets a trailing comma or a name given
            // twice pass (the plain reader above takes neither). UTF-16 and UTF-32 are scanned as UTF-8.
            if let fault = JSONSyntaxFault.findAccepting(body) {
                throw AppStoreError(.malformedBody, "notification body is not valid JSON: \(fault)")
            }
        }
        guard let signedPayload = envelope.signedPayload else {
            throw AppStoreError(.malformedBody, "notification body has no signedPayload")
        }
        return try await verifyNotification(signedPayload: signedPayload, now: now)
    }

    // MARK: Pipeline

    /// The common pipeline; `resolveApp` maps the decoded payload (and its environment) to the configured app or throws.
    /// `covered` skips the ES256 check of a JWS whose bytes an enclosing, checked signature covers.
    private func verify<Payload: SignedPayload>(
        _ jws: String,
        as type: Payload.Type,
        now: Date,
        covered: Bool,
        resolveApp: (Payload, AppStoreEnvironment?) throws -> AppStoreApp
    ) async throws -> VerifiedSignedData<Payload> {
        guard jws.utf8.count <= configuration.maximumJWSSize else {
            throw AppStoreError(.inputTooLarge, "\(Payload.kind) JWS is \(jws.utf8.count) bytes, the maximum is \(configuration.maximumJWSSize)")
        }
        let parsed = try CompactJWS(jws, headers: headers)
        guard parsed.header.alg == "ES256" else {
            throw AppStoreError(.unsupportedAlgorithm, "JWS alg is \(parsed.header.alg ?? "missing"), only ES256 is accepted")
        }
        let payload = try Self.decodePayload(Payload.self, from: parsed.payload)
        let effectiveDate = payload.effectiveDate?.date ?? now
        // A JWS of another kind decodes as this one with the fields they do not share missing, and
        // failed on one of them (its bundle id, environment or auto-renew status) with an answer
        // that sent the integrator to the wrong fix. One that lacks its own kind's marker is read
        // for another's, and named as what it is; the JSON is read again only then.
        func refuseAnotherKind() throws {
            guard !payload.hasKindMarker, let actual = SignedPayloadKind.of(parsed.payload), actual.kind != Payload.payloadKind else { return }
            throw AppStoreError(
                .invalidPayload,
                "the JWS holds \(actual.kind.phrase), not \(Payload.payloadKind.phrase) (it has \(actual.marker))"
            )
        }

        if let environment = payload.claimedEnvironment, environment.isUnsignedLocal {
            // Xcode and LocalTesting data is signed by a local key, not Apple: never run crypto on
            // it, and accept it only where explicitly enabled.
            try refuseAnotherKind()
            let app = try resolveApp(payload, environment)
            try Self.checkPolicy(payload, app: app, environment: environment)
            return VerifiedSignedData(
                payload: payload,
                payloadJSON: parsed.payload,
                facts: VerificationFacts(
                    leafCertificateFingerprint: nil,
                    effectiveDate: effectiveDate,
                    environment: environment,
                    isSignatureVerified: false
                )
            )
        }

        guard let x5c = parsed.header.x5c else {
            throw AppStoreError(.invalidFormat, "JWS header has no x5c certificate chain")
        }
        guard x5c.count == 3 else {
            throw AppStoreError(.invalidChainLength, "x5c holds \(x5c.count) certificates, expected 3")
        }
        guard let chainKey = parsed.header.chainKey else {
            throw AppStoreError(.invalidChainLength, "x5c holds \(x5c.count) certificates, expected 3")
        }
        let (chain, cached) = try await chains.validate(chainKey, at: effectiveDate)
        if let revocationChecker = configuration.revocationChecker {
            try await revocationChecker.checkRevocation(leaf: chain.leaf, intermediate: chain.intermediate, effectiveDate: effectiveDate)
        }
        var input = jws
        let signatureIsValid = covered || input.withUTF8 { bytes in
            chain.isValidSignature(parsed.signature, for: UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: bytes[..<parsed.signingInputLength])))
        }
        guard signatureIsValid else {
            throw AppStoreError(.invalidSignature, "ES256 signature of the \(Payload.kind) does not verify with the leaf certificate" + Self.signatureHint(jws, parsed))
        }

        try refuseAnotherKind()
        let app = try resolveApp(payload, payload.claimedEnvironment)
        guard let environment = payload.claimedEnvironment else {
            throw AppStoreError(.environmentNotAccepted, "\(Payload.kind) states no environment")
        }
        try Self.checkPolicy(payload, app: app, environment: environment)
        return VerifiedSignedData(
            payload: payload,
            payloadJSON: parsed.payload,
            facts: VerificationFacts(
                leafCertificateFingerprint: chain.leafFingerprint,
                effectiveDate: effectiveDate,
                environment: environment,
                isSignatureVerified: true,
                usedCachedChain: cached,
                isCoveredByEnclosingSignature: covered
            )
        )
    }

    /// What in a JWS whose signature failed shows how it was changed or made, for the answer: the
    /// signature's length when it is not ES256's 64 bytes (a DER-encoded ECDSA signature is 70 to
    /// 72), or base64's `+` and `/`, which Apple's base64url text never holds (the signature covers
    /// the text, so a JWS re-encoded on the way no longer matches it). Read only on that failure.
    private static func signatureHint(_ jws: String, _ parsed: CompactJWS) -> String {
        if parsed.signature.count != 64 {
            return " (the signature is \(parsed.signature.count) bytes, where ES256's is 64: r then s, not DER)"
        }
        // In the signed text only: the signature segment decodes to the same bytes in either alphabet.
        let signed = jws.utf8.prefix(parsed.signingInputLength)
        if signed.contains(UInt8(ascii: "+")) || signed.contains(UInt8(ascii: "/")) {
            return " (the JWS holds base64's '+' or '/' where base64url has '-' and '_': changed on the way, it no longer matches its signature)"
        }
        return ""
    }

    private static func decodePayload<Payload: SignedPayload>(_ type: Payload.Type, from data: Data) throws -> Payload {
        // JSONDecoder was about a third of verifying a notification; the scanner reads Apple's usual
        // text to the same value and leaves everything else (and every error) to JSONDecoder.
        if let payload = Payload.scanned(from: data) { return payload }
        do {
            return try JSONDecoder().decode(Payload.self, fromUntrusted: data)
        } catch DecodingError.dataCorrupted(let context) where context.codingPath.isEmpty {
            throw AppStoreError(.invalidFormat, "\(Payload.kind) JWS payload is not JSON")
        } catch DecodingError.typeMismatch(_, let context) where context.codingPath.isEmpty {
            throw AppStoreError(.invalidFormat, "\(Payload.kind) JWS payload is not a JSON object")
        } catch {
            throw AppStoreError(.invalidPayload, "\(Payload.kind) payload does not match Apple's format: \(Self.describe(error))")
        }
    }

    /// The configured app with `bundleId`, the one signed payloads are checked against; callers that
    /// take Apple's unsigned legacy inputs apply the same app and environment rules with it.
    public func app(bundleId: String) -> AppStoreApp? {
        appsByBundleId[bundleId]
    }

    private func app(forBundleId bundleId: String?, kind: String) throws -> AppStoreApp {
        // Every transaction, AppTransaction and notification Apple signs names its app.
        guard let bundleId else {
            throw AppStoreError(.invalidPayload, "\(kind) names no bundleId")
        }
        guard let app = appsByBundleId[bundleId] else {
            throw AppStoreError(.unknownApp, "\(kind) bundle id \(bundleId) is not a configured app")
        }
        return app
    }

    /// The Apple id and environment checks, once the app is known.
    private static func checkPolicy<Payload: SignedPayload>(_ payload: Payload, app: AppStoreApp, environment: AppStoreEnvironment) throws {
        // Checked before the environment, as Apple's libraries do: a payload of another app that
        // happens to share the bundle id is an identity error whatever its environment.
        if let expected = app.appAppleId {
            if let claimed = payload.claimedAppAppleId, claimed != expected {
                throw AppStoreError(.appAppleIdMismatch, "\(Payload.kind) appAppleId \(claimed) is not \(expected) for \(app.bundleId)")
            }
            if Payload.self == ResponseBodyV2DecodedPayload.self, environment == .production, payload.claimedAppAppleId == nil {
                throw AppStoreError(.appAppleIdMismatch, "Production notification for \(app.bundleId) has no appAppleId")
            }
        }
        guard app.accepts(environment) else {
            throw AppStoreError(.environmentNotAccepted, "\(Payload.kind) environment \(environment) is not accepted for \(app.bundleId)")
        }
    }

    private static func expectConsistent<Value: Equatable>(_ actual: Value?, _ expected: Value, field: String) throws {
        guard actual == expected else {
            throw AppStoreError(.payloadMismatch, "\(field) \(actual.map { "\($0)" } ?? "(missing)") does not match the notification's \(expected)")
        }
    }

    /// A payload's fault in JSON's words (``Swift/DecodingError/summary``), except an invalid value,
    /// whose own text (a date out of range, say) says more than its path.
    private static func describe(_ error: any Error) -> String {
        guard let error = error as? DecodingError else { return LibraryErrorText.describe(error) }
        guard case .dataCorrupted(let context) = error else { return error.summary }
        let path = context.codingPath.map(\.stringValue).joined(separator: ".")
        return path.isEmpty ? context.debugDescription : "\(path): \(context.debugDescription)"
    }
}
