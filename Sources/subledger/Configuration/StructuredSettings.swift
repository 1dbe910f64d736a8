import AppStore
import Foundation
import Ledger
import LedgerHTTP
import Yams

/// Reads the list and map sections of the file (`apple.apps`, `apple.trusted_roots`, `products`,
/// `auth.keys`) strictly: unknown keys and bad values fail naming the key, like scalar settings.
enum StructuredSettings {
    /// With `needsSecrets` false (commands that never talk to Apple), a `shared_secret_env` naming a
    /// variable that is not set leaves the app without a secret instead of failing.
    static func apply(
        _ sections: [String: Node], to configuration: inout SubledgerConfiguration, environment: [String: String], needsSecrets: Bool = true
    ) throws {
        if let node = sections["apple.trusted_roots"] {
            configuration.trustedRoots = try strings(node, key: "apple.trusted_roots")
        }
        if let node = sections["apple.apps"] {
            configuration.apps = try items(node, key: "apple.apps").enumerated().map { index, item in
                let key = "apple.apps[\(index)]"
                let fields = try mapping(item, key: key, allowed: ["bundle_id", "app_apple_id", "environments", "shared_secret_env", "allow_unsigned_local"])
                guard let bundleId = try scalar(fields, "bundle_id", key: key), !bundleId.isEmpty else {
                    throw ConfigurationError(key: "\(key).bundle_id", message: "is required")
                }
                var appAppleId: Int64?
                if let text = try scalar(fields, "app_apple_id", key: key) {
                    // Apple's ids are positive: 0 or -5 would never match a notification's appAppleId.
                    guard let id = Int64(text), id > 0 else {
                        throw ConfigurationError(key: "\(key).app_apple_id", message: "must be a positive whole number, the app's Apple ID in App Store Connect (got \(text))")
                    }
                    appAppleId = id
                }
                let environments = try fields["environments"].map { try strings($0, key: "\(key).environments") } ?? ["Production"]
                for environment in environments where !AppStoreEnvironment.known.map(\.rawValue).contains(environment) {
                    throw ConfigurationError(key: "\(key).environments", message: "must be Production, Sandbox, Xcode or LocalTesting (got \(environment))")
                }
                var secret: String?
                if let variable = try scalar(fields, "shared_secret_env", key: key) {
                    if let value = environment[variable], !value.isEmpty {
                        secret = value
                    } else if needsSecrets {
                        throw ConfigurationError(key: "\(key).shared_secret_env", message: SecretVariable.missing(variable, in: environment))
                    }
                }
                let unsigned = try fields["allow_unsigned_local"].map { try boolean($0, key: "\(key).allow_unsigned_local") } ?? false
                // Xcode and LocalTesting data is signed by a local key, not Apple's: the verifier
                // takes it only from an app that allows it, so without the flag it could never work.
                if let local = environments.first(where: { $0 == "Xcode" || $0 == "LocalTesting" }), !unsigned {
                    throw ConfigurationError(
                        key: "\(key).environments",
                        message: "lists \(local), whose data is not signed by Apple: set allow_unsigned_local: true to accept it (never in production)"
                    )
                }
                return SubledgerConfiguration.AppSettings(bundleId: bundleId, appAppleId: appAppleId, environments: environments, sharedSecret: secret, allowUnsignedLocal: unsigned)
            }
            // Data whose signature is not checked proves nothing, the V2 webhook takes it from anyone,
            // and a subscription is found by its original transaction id alone: accepted beside
            // Production, a forged Xcode notification could move or revoke a paying user's subscription.
            if let local = configuration.apps.firstIndex(where: \.allowUnsignedLocal),
               let production = configuration.apps.firstIndex(where: { $0.environments.contains("Production") }) {
                throw ConfigurationError(
                    key: "apple.apps[\(local)].allow_unsigned_local",
                    message: "accepts Xcode and LocalTesting data, which Apple does not sign (its signature is never checked) and anyone who reaches the V2 webhook can post naming any subscription; refused while apple.apps[\(production)] (\(configuration.apps[production].bundleId)) accepts Production: test locally on a deployment of its own"
                )
            }
        }
        if let node = sections["products"] {
            guard case .mapping(let products) = node else {
                throw ConfigurationError(key: "products", message: "must map product ids to { entitlements: [...] }")
            }
            var catalog: [String: ProductCatalog.Product] = [:]
            for (idNode, value) in products {
                guard let id = idNode.string else { throw ConfigurationError(key: "products", message: "product ids must be strings") }
                let key = "products.\(id)"
                let fields = try mapping(value, key: key, allowed: ["entitlements", "duration_days"])
                let entitlements = try fields["entitlements"].map { try strings($0, key: "\(key).entitlements") } ?? []
                var days: Int?
                if let text = try scalar(fields, "duration_days", key: key) {
                    // 100 years at most: a duration is added to purchase dates in milliseconds.
                    days = try ConfigurationLoader.integer(text, in: 1...36_525, key: "\(key).duration_days")
                }
                catalog[id] = ProductCatalog.Product(entitlements: entitlements, durationDays: days)
            }
            configuration.catalog = ProductCatalog(products: catalog)
        }
        if let node = sections["auth.keys"] {
            configuration.apiKeys = try items(node, key: "auth.keys").enumerated().map { index, item in
                let key = "auth.keys[\(index)]"
                let fields = try mapping(item, key: key, allowed: ["name", "scopes", "sha256"])
                guard let name = try scalar(fields, "name", key: key), !name.isEmpty else { throw ConfigurationError(key: "\(key).name", message: "is required") }
                let written = try scalar(fields, "sha256", key: key)
                guard let hash = written?.lowercased(), hash.count == 64, hash.allSatisfy(\.isHexDigit) else {
                    // The secret pasted where its hash belongs: say so, without repeating it.
                    let pasted = written?.hasPrefix("sl_") == true ? "; this looks like the secret itself, which never goes in the file" : ""
                    throw ConfigurationError(key: "\(key).sha256", message: "must be the 64 hex digits `subledger keys hash` prints\(pasted)")
                }
                let scopes = try fields["scopes"].map { try strings($0, key: "\(key).scopes") } ?? []
                var parsed = Set<APIScope>()
                for scope in scopes {
                    guard let value = APIScope(rawValue: scope) else {
                        throw ConfigurationError(key: "\(key).scopes", message: "must be read, ingest or admin (got \(scope))")
                    }
                    parsed.insert(value)
                }
                // A key without a scope would be refused by every endpoint: a mistake, not a choice.
                guard !parsed.isEmpty else {
                    throw ConfigurationError(key: "\(key).scopes", message: "must list at least one of read, ingest and admin")
                }
                return APIKey(name: name, scopes: parsed, sha256: hash)
            }
            // The name is what events recorded with a key keep (metadata `apiKey`): two keys of one
            // name could not be told apart in the history.
            for (index, key) in configuration.apiKeys.enumerated() {
                if let first = configuration.apiKeys.firstIndex(where: { $0.name == key.name }), first < index {
                    throw ConfigurationError(key: "auth.keys[\(index)].name", message: "\(key.name) is auth.keys[\(first)]'s name too; each key needs its own")
                }
                // One secret would be both keys, and a request could only ever be the first of them:
                // the second key's scopes and name would silently never apply.
                if let first = configuration.apiKeys.firstIndex(where: { $0.sha256 == key.sha256 }), first < index {
                    throw ConfigurationError(
                        key: "auth.keys[\(index)].sha256",
                        message: "is auth.keys[\(first)]'s (\(configuration.apiKeys[first].name)) hash too, so one secret would be both keys; give each key its own secret"
                    )
                }
            }
        }
    }

    static func items(_ node: Node, key: String) throws -> [Node] {
        guard case .sequence(let sequence) = node else { throw ConfigurationError(key: key, message: "must be a list") }
        return Array(sequence)
    }

    static func strings(_ node: Node, key: String) throws -> [String] {
        try items(node, key: key).map {
            guard let text = $0.string else { throw ConfigurationError(key: key, message: "must be a list of strings") }
            return text
        }
    }

    static func boolean(_ node: Node, key: String) throws -> Bool {
        guard let text = node.string else { throw BooleanSetting.refusal(key: key, got: "a collection") }
        guard let value = BooleanSetting.parse(text) else { throw BooleanSetting.refusal(key: key, got: text) }
        return value
    }

    /// The text of a scalar field, nil when it is absent; a list or a mapping where one value
    /// belongs is refused, not read as absent (`duration_days: [30]` made a pass last for ever).
    static func scalar(_ fields: [String: Node], _ field: String, key: String) throws -> String? {
        guard let node = fields[field] else { return nil }
        guard case .scalar(let scalar) = node else {
            throw ConfigurationError(key: "\(key).\(field)", message: "must be a single value, not a list or a mapping")
        }
        return scalar.string
    }

    static func mapping(_ node: Node, key: String, allowed: Set<String>) throws -> [String: Node] {
        guard case .mapping(let mapping) = node else { throw ConfigurationError(key: key, message: "must be a mapping") }
        var fields: [String: Node] = [:]
        for (name, value) in mapping {
            guard let field = name.string else { throw ConfigurationError(key: key, message: "keys must be strings") }
            guard allowed.contains(field) else {
                throw ConfigurationError(key: "\(key).\(field)", message: "unknown key; known keys: \(allowed.sorted().joined(separator: ", "))")
            }
            fields[field] = value
        }
        return fields
    }
}
