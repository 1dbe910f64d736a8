import AppStore
import ArgumentParser
import Foundation

/// `subledger verify`: verifies an App Store JWS or V2 notification body and prints its decoded payload.
///
/// An operator's tool to inspect what Apple sent: the same ``SignedDataVerifier`` the service uses,
/// anchored on the bundled Apple Root CA - G3 plus any `--root`. Exit status 0 when valid, 1 when
/// not (the error code is printed on stderr).
struct VerifyCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "verify",
        abstract: "Verify an App Store signed transaction, renewal info, AppTransaction or V2 notification.",
        discussion: """
            INPUT is a compact JWS or a notification body ({"signedPayload": "..."}), read from a file or from stdin (-). \
            Several JWS separated by line breaks or spaces are verified in turn, as an apple.transaction event's \
            data.raw keeps a transaction and its renewal info. \
            Each payload is printed as JSON on stdout, with nested signed data decoded too. The chain must lead to \
            Apple Root CA - G3 or to a --root. Without --bundle-id (and --app-apple-id) the payload's own claims \
            are taken, so only the chain, the signature and the environment are checked.
            """
    )

    @Option(name: .customLong("root"), help: ArgumentHelp("An extra trusted root certificate (DER or PEM); repeatable.", valueName: "file"))
    var roots: [String] = []

    @Option(name: .customLong("bundle-id"), help: "The app's bundle id the payload must name.")
    var bundleId: String?

    @Option(name: .customLong("app-apple-id"), help: "The app's Apple id a Production notification must name.")
    var appAppleId: Int64?

    @Option(name: .customLong("environment"), help: "The accepted environment: Production, Sandbox, Xcode or LocalTesting (default: Production and Sandbox).")
    var environment: String?

    @Argument(help: ArgumentHelp("The JWS or notification body file, or - for stdin.", valueName: "input"))
    var input: String

    func validate() throws {
        if let environment, !AppStoreEnvironment.known.map(\.rawValue).contains(environment) {
            throw ValidationError("--environment must be one of \(AppStoreEnvironment.known.map(\.rawValue).joined(separator: ", ")) (got \(environment))")
        }
    }

    func run() async throws {
        var text = try readInput()
        // A byte order mark, as some editors save, is not part of the input.
        if text.hasPrefix("\u{FEFF}") { text.removeFirst() }
        // A JSON string copied whole (`jq` without -r): its quotes are not part of the JWS.
        if text.count >= 2, text.hasPrefix("\""), text.hasSuffix("\"") { text = String(text.dropFirst().dropLast()) }
        // A JWS holds no whitespace and no backslash, so either separates two: a stored submission's
        // transaction and renewal info, as data.raw is stored or as JSON shows it (`\n` escaped).
        // A notification body is one JSON document.
        let inputs = text.hasPrefix("{")
            ? [text]
            : text.replacingOccurrences(of: "\\n", with: "\n").split(whereSeparator: \.isWhitespace).map(String.init)
        let now = Date()
        for (index, input) in inputs.enumerated() {
            do {
                print(try await verify(input, now: now))
            } catch let error as AppStoreError {
                let which = inputs.count > 1 ? "JWS \(index + 1) of \(inputs.count): " : ""
                FileHandle.standardError.write(Data("\(which)\(error.code.rawValue): \(error.message)\(hint(for: error))\n".utf8))
                throw ExitCode(1)
            }
        }
    }

    /// What the operator can change when the failure is about the options rather than the data.
    private func hint(for error: AppStoreError) -> String {
        switch (error.code, bundleId) {
        case (.unknownApp, let bundleId?):
            "; --bundle-id \(bundleId) is not the app this payload names"
        default:
            ""
        }
    }

    private func readInput() throws -> String {
        let data: Data
        if input == "-" {
            data = FileHandle.standardInput.readDataToEndOfFile()
        } else {
            // Not Apple's data at fault: say so plainly, without an App Store error code.
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: input, isDirectory: &isDirectory), isDirectory.boolValue {
                printError("cannot read \(input): it is a directory; give the file that holds the JWS or notification body")
                throw ExitCode(1)
            }
            guard let contents = FileManager.default.contents(atPath: input) else {
                printError("cannot read \(input): it does not exist or is not readable")
                throw ExitCode(1)
            }
            data = contents
        }
        let text = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        guard !text.isEmpty else {
            printError("\(input == "-" ? "standard input" : input) is empty: give a compact JWS or a notification body ({\"signedPayload\": \"...\"})")
            throw ExitCode(1)
        }
        return text
    }

    /// Verifies `text` and returns the pretty JSON to print.
    private func verify(_ text: String, now: Date) async throws -> String {
        var signedPayload = text
        var isNotification = false
        if text.hasPrefix("{") {
            guard let object = try? JSONDecoder().decode(ResponseBodyV2.self, fromUntrusted: Data(text.utf8)), let payload = object.signedPayload else {
                throw AppStoreError(.malformedBody, "JSON input is not a notification body with a signedPayload")
            }
            signedPayload = payload
            isNotification = true
        }
        let claims = Self.unverifiedClaims(of: signedPayload)
        do {
            return try await verify(signedPayload, claims: claims, isNotification: isNotification, now: now)
        } catch let error as AppStoreError where error.code == .environmentNotAccepted {
            throw AppStoreError(error.code, error.message + environmentHint(stated: claims.environment))
        }
    }

    /// Verifies the JWS `signedPayload` as the kind `claims` and `isNotification` say, and returns
    /// the pretty JSON to print.
    private func verify(_ signedPayload: String, claims: Claims, isNotification: Bool, now: Date) async throws -> String {
        let verifier = try makeVerifier(claims: claims)

        if isNotification || claims.kind == .notification {
            let result = try await verifier.verifyNotification(signedPayload: signedPayload, now: now)
            report(result.notification.facts)
            var object = try Self.jsonObject(result.notification.payloadJSON)
            if var data = object["data"] as? [String: Any] {
                if let transaction = result.transaction { data["signedTransactionInfo"] = try Self.jsonObject(transaction.payloadJSON) }
                if let renewal = result.renewalInfo { data["signedRenewalInfo"] = try Self.jsonObject(renewal.payloadJSON) }
                object["data"] = data
            }
            if var appData = object["appData"] as? [String: Any], let appTransaction = result.appTransaction {
                appData["signedAppTransactionInfo"] = try Self.jsonObject(appTransaction.payloadJSON)
                object["appData"] = appData
            }
            return try Self.pretty(object)
        }
        switch claims.kind {
        case .renewalInfo:
            let result = try await verifier.verifyRenewalInfo(signedPayload, bundleId: bundleId, now: now)
            report(result.facts)
            return try Self.pretty(Self.jsonObject(result.payloadJSON))
        case .appTransaction:
            let result = try await verifier.verifyAppTransaction(signedPayload, now: now)
            report(result.facts)
            return try Self.pretty(Self.jsonObject(result.payloadJSON))
        case .transaction, .notification:
            let result = try await verifier.verifyTransaction(signedPayload, now: now)
            report(result.facts)
            return try Self.pretty(Self.jsonObject(result.payloadJSON))
        }
    }

    private func makeVerifier(claims: Claims) throws -> SignedDataVerifier {
        var trusted = [try TrustAnchors.appleRootCAG3()]
        for path in roots {
            do {
                trusted.append(contentsOf: try TrustAnchors.certificates(fromFile: path))
            } catch let error as AppStoreError {
                // The operator's option, not the data: a usage error, naming the file.
                printError("Error: --root \(path): \(error.message)")
                throw ExitCode(64)
            }
        }
        let environments: Set<AppStoreEnvironment> = environment.map { [AppStoreEnvironment(rawValue: $0)] } ?? [.production, .sandbox]
        let app = AppStoreApp(
            bundleId: bundleId ?? claims.bundleId ?? "",
            // Production requires an Apple id to compare with: the operator's, or else the payload's own.
            appAppleId: appAppleId ?? claims.appAppleId ?? (environments.contains(.production) ? 0 : nil),
            environments: environments,
            allowsUnsignedLocalEnvironments: environments.contains(where: \.isUnsignedLocal)
        )
        // An inspection tool, not a hot path: check every nested signature too.
        return try SignedDataVerifier(configuration: .init(trustedRoots: trusted, apps: [app], checksNestedSignatures: true))
    }

    private func report(_ facts: VerificationFacts) {
        let status = facts.isSignatureVerified
            ? "verified: leaf SHA-256 \(facts.leafCertificateFingerprint ?? "?")"
            : "NOT SIGNATURE-CHECKED (\(facts.environment) data is unsigned by Apple)"
        let line = "\(status), environment \(facts.environment), effective \(facts.effectiveDate.formatted(.iso8601))\n"
        FileHandle.standardError.write(Data(line.utf8))
    }

    // MARK: Unverified peek (routing only; every claim is verified afterwards)


    private struct Claims {
        var kind: SignedPayloadKind = .transaction
        var bundleId: String?
        var appAppleId: Int64?
        /// The environment the payload states (an AppTransaction's `receiptType`), if any.
        var environment: String?
    }

    /// What the operator can change when the payload's environment is not accepted: which
    /// environments `--environment` takes, or that it can name another. Nothing for a payload that
    /// states none, which no option makes valid.
    private func environmentHint(stated: String?) -> String {
        guard stated != nil else { return "" }
        guard let environment else { return "; only Production and Sandbox are accepted unless --environment names another" }
        // The two unsigned local environments are taken together (`allowsUnsignedLocalEnvironments`).
        let accepted = AppStoreEnvironment(rawValue: environment).isUnsignedLocal ? "Xcode and LocalTesting" : environment
        return "; --environment \(environment) accepts \(accepted) only"
    }

    private static func unverifiedClaims(of jws: String) -> Claims {
        let segments = jws.split(separator: ".", omittingEmptySubsequences: false)
        guard segments.count == 3 else { return Claims() }
        var base64 = segments[1].replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while base64.count % 4 != 0 { base64 += "=" }
        guard let data = Data(base64Encoded: base64),
            let object = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any]
        else { return Claims() }
        var claims = Claims()
        // A payload with no marker field is read as a transaction if it names an app, else as
        // renewal info, the one kind without a bundle id.
        claims.kind = SignedPayloadKind.of(object)?.kind ?? (object["bundleId"] != nil ? .transaction : .renewalInfo)
        switch claims.kind {
        case .notification:
            for key in ["data", "summary", "appData", "externalPurchaseToken"] {
                if let inner = object[key] as? [String: Any] {
                    claims.bundleId = inner["bundleId"] as? String
                    claims.appAppleId = (inner["appAppleId"] as? NSNumber)?.int64Value
                    claims.environment = inner["environment"] as? String
                    break
                }
            }
        case .appTransaction:
            claims.bundleId = object["bundleId"] as? String
            claims.appAppleId = (object["appAppleId"] as? NSNumber)?.int64Value
            claims.environment = object["receiptType"] as? String
        case .transaction:
            claims.bundleId = object["bundleId"] as? String
            claims.environment = object["environment"] as? String
        case .renewalInfo:
            claims.environment = object["environment"] as? String
        }
        return claims
    }

    private static func jsonObject(_ data: Data) throws -> [String: Any] {
        guard let object = try JSONSerialization.jsonObject(with: data) as? [String: Any] else {
            throw AppStoreError(.invalidFormat, "payload is not a JSON object")
        }
        return object
    }

    private static func pretty(_ object: [String: Any]) throws -> String {
        let data = try JSONSerialization.data(withJSONObject: object, options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes])
        return String(decoding: data, as: UTF8.self)
    }
}
