import EventStore
import EventStoreTesting
import Foundation
import Logging
import Testing
@testable import subledger

@Suite("Configuration: YAML file plus SUBLEDGER_* overrides")
struct ConfigurationLoaderTests {
    @Test func noFileAndNoEnvironmentGivesTheEmbeddedDefaults() throws {
        let configuration = try ConfigurationLoader(environment: [:]).load(yaml: "")
        var defaults = SubledgerConfiguration()
        // Said when the database is not there.
        defaults.databaseOrigin = "the default, as (file) sets no database.url"
        #expect(configuration == defaults)
        #expect(configuration.database == .sqlite(path: "subledger.sqlite"))
        #expect(configuration.httpHost == "127.0.0.1")
        #expect(configuration.httpPort == 8080)
        #expect(configuration.migrateOnStart)
    }

    @Test func theFileSetsValuesAndTheEnvironmentOverridesThem() throws {
        let yaml = """
            http: { host: 0.0.0.0, port: 8081 }
            database:
              url: "postgres://ledger@db:5432/ledger"
              migrate_on_start: false
            log: { level: debug }
            """
        let fromFile = try ConfigurationLoader(environment: [:]).load(yaml: yaml)
        #expect(fromFile.httpHost == "0.0.0.0")
        #expect(fromFile.httpPort == 8081)
        #expect(!fromFile.migrateOnStart)
        #expect(fromFile.logLevel == .debug)
        guard case .postgres(let settings) = fromFile.database else {
            Issue.record("database.url was not read as PostgreSQL")
            return
        }
        #expect(settings.host == "db")

        let overridden = try ConfigurationLoader(environment: [
            "SUBLEDGER_HTTP_PORT": "9090",
            "SUBLEDGER_DATABASE_URL": "sqlite:/var/lib/subledger/ledger.sqlite",
            "SUBLEDGER_DATABASE_MIGRATE_ON_START": "yes",
            "PATH": "/usr/bin",
        ]).load(yaml: yaml)
        #expect(overridden.httpPort == 9090)
        #expect(overridden.httpHost == "0.0.0.0")
        #expect(overridden.database == .sqlite(path: "/var/lib/subledger/ledger.sqlite"))
        #expect(overridden.migrateOnStart)
    }

    @Test func theIdleTimeoutDefaultsTo30SecondsAndIsSetByFileOrEnvironment() throws {
        #expect(try ConfigurationLoader(environment: [:]).load(yaml: "").httpIdleTimeoutSeconds == 30)
        #expect(try ConfigurationLoader(environment: [:]).load(yaml: "http: { idle_timeout_seconds: 5 }").httpIdleTimeoutSeconds == 5)
        let overridden = try ConfigurationLoader(environment: ["SUBLEDGER_HTTP_IDLE_TIMEOUT_SECONDS": "7"]).load(yaml: "http: { idle_timeout_seconds: 5 }")
        #expect(overridden.httpIdleTimeoutSeconds == 7)
    }

    @Test func theRequestTimeoutDefaultsTo60SecondsAndIsSetByFileOrEnvironment() throws {
        #expect(try ConfigurationLoader(environment: [:]).load(yaml: "").httpRequestTimeoutSeconds == 60)
        #expect(try ConfigurationLoader(environment: [:]).load(yaml: "http: { request_timeout_seconds: 5 }").httpRequestTimeoutSeconds == 5)
        let overridden = try ConfigurationLoader(environment: ["SUBLEDGER_HTTP_REQUEST_TIMEOUT_SECONDS": "9"]).load(yaml: "http: { request_timeout_seconds: 5 }")
        #expect(overridden.httpRequestTimeoutSeconds == 9)
    }

    /// Choices are read in any letter case, as booleans are: `SUBLEDGER_LOG_LEVEL=INFO` is not a typo.
    @Test func choicesAreReadInAnyLetterCase() throws {
        let loaded = try ConfigurationLoader(environment: ["SUBLEDGER_LOG_LEVEL": "WARNING"]).load(yaml: "linking: { policy: Keep }")
        #expect(loaded.logLevel == .warning)
        #expect(loaded.linkPolicy == .keep)
        #expect(try ConfigurationLoader(environment: [:]).load(yaml: "log: { level: Debug }").logLevel == .debug)
        #expect(throws: ConfigurationError(key: "SUBLEDGER_LOG_LEVEL", message: "must be one of trace, debug, info, notice, warning, error, critical (got LOUD)")) {
            try ConfigurationLoader(environment: ["SUBLEDGER_LOG_LEVEL": "LOUD"]).load(yaml: "")
        }
    }

    /// A boolean takes the same spellings in the file, in a variable and in an app's fields, and
    /// its refusal names them all: "true or false" alone read as if `YES` and `0` were refused.
    @Test func booleansTakeTheSameSpellingsEverywhereAndTheRefusalNamesThem() throws {
        for (text, value) in [("YES", true), ("On", true), ("1", true), ("False", false), ("no", false), ("OFF", false), ("0", false)] {
            #expect(try ConfigurationLoader(environment: ["SUBLEDGER_DATABASE_MIGRATE_ON_START": text]).load(yaml: "").migrateOnStart == value, "\(text)")
            #expect(try ConfigurationLoader(environment: [:]).load(yaml: "entitlements: { sandbox_grants: \(text) }").sandboxGrants == value, "\(text)")
            // Xcode is refused without allow_unsigned_local, so a false one names Sandbox.
            let app = "apple:\n  apps:\n    - { bundle_id: a, environments: [\(value ? "Xcode" : "Sandbox")], allow_unsigned_local: \(text) }"
            #expect(try ConfigurationLoader(environment: [:]).load(yaml: app).apps.first?.allowUnsignedLocal == value, "\(text)")
        }
        let spellings = "must be true or false (or yes/no, on/off, 1/0, in any letter case; got Maybe)"
        #expect(throws: ConfigurationError(key: "SUBLEDGER_DATABASE_MIGRATE_ON_START", message: spellings)) {
            try ConfigurationLoader(environment: ["SUBLEDGER_DATABASE_MIGRATE_ON_START": "Maybe"]).load(yaml: "")
        }
        #expect(throws: ConfigurationError(key: "entitlements.sandbox_grants", message: spellings)) {
            try ConfigurationLoader(environment: [:]).load(yaml: "entitlements: { sandbox_grants: Maybe }")
        }
        #expect(throws: ConfigurationError(key: "apple.apps[0].allow_unsigned_local", message: spellings)) {
            try ConfigurationLoader(environment: [:]).load(yaml: "apple:\n  apps:\n    - { bundle_id: a, environments: [Xcode], allow_unsigned_local: Maybe }")
        }
    }

    @Test func theConnectionCeilingIsTheDefaultUnlessFileOrEnvironmentSetIt() throws {
        #expect(try ConfigurationLoader(environment: [:]).load(yaml: "").httpMaxConnections == nil)
        #expect(try ConfigurationLoader(environment: [:]).load(yaml: "http: { max_connections: 500 }").httpMaxConnections == 500)
        let overridden = try ConfigurationLoader(environment: ["SUBLEDGER_HTTP_MAX_CONNECTIONS": "20"]).load(yaml: "http: { max_connections: 500 }")
        #expect(overridden.httpMaxConnections == 20)
    }

    @Test func theFeedStreamCeilingIs64UnlessFileOrEnvironmentSetIt() throws {
        #expect(try ConfigurationLoader(environment: [:]).load(yaml: "").httpMaxFeedStreams == 64)
        #expect(try ConfigurationLoader(environment: [:]).load(yaml: "http: { max_feed_streams: 4 }").httpMaxFeedStreams == 4)
        let overridden = try ConfigurationLoader(environment: ["SUBLEDGER_HTTP_MAX_FEED_STREAMS": "2"]).load(yaml: "http: { max_feed_streams: 4 }")
        #expect(overridden.httpMaxFeedStreams == 2)
    }

    @Test(arguments: [
        ("http: { prot: 8080 }", "http.prot"),
        ("http: { max_connections: 0 }", "http.max_connections"),
        ("http: { max_feed_streams: 0 }", "http.max_feed_streams"),
        ("htp: { port: 8080 }", "htp"),
        ("produts: { pro.monthly: { entitlements: [pro] } }", "produts"),
        ("auth: { key: [{ name: b }] }", "auth.key"),
        ("http: 8080", "http"),
        ("apple: { verify_receipt: sandbox }", "apple.verify_receipt"),
        ("database: { url: [a] }", "database.url"),
        ("http: { port: eighty }", "http.port"),
        ("http: { port: 70000 }", "http.port"),
        ("http: { idle_timeout_seconds: 0 }", "http.idle_timeout_seconds"),
        ("http: { request_timeout_seconds: 3601 }", "http.request_timeout_seconds"),
        ("database: { url: 'mysql://x' }", "database.url"),
        ("database: { migrate_on_start: sometimes }", "database.migrate_on_start"),
        ("log: { level: loud }", "log.level"),
        ("http: [1, 2]", "http"),
        ("- just\n- a list", "(file)"),
        ("http: {", "(file)"),
    ])
    func unknownKeysAndBadValuesFailNamingTheKey(_ yaml: String, _ key: String) {
        do {
            _ = try ConfigurationLoader(environment: [:]).load(yaml: yaml)
            Issue.record("accepted bad configuration: \(yaml)")
        } catch let error as ConfigurationError {
            #expect(error.key == key)
            #expect(error.description.contains(key))
        } catch {
            Issue.record("unexpected error \(error)")
        }
    }

    /// A misspelt section is called unknown (with every known key, the sections' own included), not
    /// described by what its contents fail to be; a section given a value says what it takes; a file
    /// that is not YAML is named.
    @Test func messagesSayWhatIsWrongWithTheKeyItself() throws {
        func message(_ yaml: String) -> String {
            do {
                _ = try ConfigurationLoader(environment: [:]).load(yaml: yaml)
                return "accepted"
            } catch {
                return "\(error)"
            }
        }
        let misspelt = message("produts: { pro.monthly: { entitlements: [pro] } }")
        #expect(misspelt.hasPrefix("configuration: produts: unknown key; known keys: "), "\(misspelt)")
        for key in ["products", "apple.apps", "apple.trusted_roots", "auth.keys", "http.port"] {
            #expect(misspelt.contains(key), "\(misspelt)")
        }
        #expect(message("http: 8080") == "configuration: http: is a section: it takes a mapping of keys (http.host, http.idle_timeout_seconds, http.max_connections, http.max_feed_streams, http.port, http.request_timeout_seconds), not a single value or a list")
        #expect(message("http:\napple:\n  verify_receipt: NULL\nlog: ~\n") == "accepted", "an empty section sets nothing")
        #expect(message("http: ''").hasPrefix("configuration: http: is a section"), "a quoted empty string is a value, not an empty section")
        #expect(message("log: { level: [info] }") == "configuration: log.level: expected a single value, not a list or a mapping")
        #expect(message("apple:\n  apps:\n    - { bundle_id: a, app_apple_id: 0 }")
            == "configuration: apple.apps[0].app_apple_id: must be a positive whole number, the app's Apple ID in App Store Connect (got 0)")

        let path = FileManager.default.temporaryDirectory.appendingPathComponent("broken-\(UUID().uuidString).yaml").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        #expect(FileManager.default.createFile(atPath: path, contents: Data("http: {".utf8)))
        #expect(throws: ConfigurationError.self) { try ConfigurationLoader(environment: [:]).load(path: path) }
        do {
            _ = try ConfigurationLoader(environment: [:]).load(path: path)
        } catch let error as ConfigurationError {
            #expect(error.key == path && error.message.hasPrefix("not valid YAML"))
        }
    }

    @Test func nestedSignatureChecksAreOffByDefaultAndReachTheVerifier() async throws {
        #expect(try ConfigurationLoader(environment: [:]).load(yaml: "").checkNestedSignatures == false)
        let fromFile = try ConfigurationLoader(environment: [:]).load(yaml: "apple: { check_nested_signatures: true }")
        #expect(fromFile.checkNestedSignatures)
        let overridden = try ConfigurationLoader(environment: ["SUBLEDGER_APPLE_CHECK_NESTED_SIGNATURES": "false"])
            .load(yaml: "apple: { check_nested_signatures: true }")
        #expect(overridden.checkNestedSignatures == false)

        let path = FileManager.default.temporaryDirectory.appendingPathComponent("nested-\(UUID().uuidString).sqlite").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let store = try await SQLiteEventStore.open(path: path)
        let ledger = LedgerFactory.makeLedger(fromFile, verifier: try LedgerFactory.makeVerifier(fromFile), store: store, httpClient: .shared, logger: Logger(label: "test"))
        #expect(ledger.verifier.configuration.checksNestedSignatures)
        try await store.shutdown()
    }

    /// A transfer runs again to lock its previous owner up front on PostgreSQL; SQLite's one writer
    /// cannot deadlock, so there it would only repeat the work. The store decides, not the URL.
    @Test(arguments: TestDatabases.dialects)
    func transfersRunAgainForTheirPreviousOwnerOnlyOnPostgreSQL(_ dialect: StorageDialect) async throws {
        try await withFreshStore(dialect) { (fixture: StoreFixture) async throws in
            let configuration = try ConfigurationLoader(environment: [:]).load(yaml: "")
            let ledger = LedgerFactory.makeLedger(
                configuration, verifier: try LedgerFactory.makeVerifier(configuration), store: fixture.store, httpClient: .shared, logger: Logger(label: "test")
            )
            #expect(ledger.configuration.previousOwnerRestarts == (dialect == .sqlite ? 0 : 3))
        }
    }

    @Test func aBadEnvironmentOverrideIsNamedByItsVariable() {
        #expect(throws: ConfigurationError(key: "SUBLEDGER_HTTP_PORT", message: "must be a whole number from 0 to 65535 (got x)")) {
            try ConfigurationLoader(environment: ["SUBLEDGER_HTTP_PORT": "x"]).load(yaml: "http: { port: 1 }")
        }
        do {
            _ = try ConfigurationLoader(environment: ["SUBLEDGER_HTTP_PROT": "1"]).load(yaml: "")
            Issue.record("accepted an unknown override")
        } catch let error as ConfigurationError {
            #expect(error.key == "SUBLEDGER_HTTP_PROT")
        } catch {
            Issue.record("unexpected error \(error)")
        }
    }

    /// A bad URL from the environment is named by its variable, as every other key is.
    @Test func aBadDatabaseURLIsNamedByWhereItCameFrom() {
        for (environment, yaml, key) in [
            (["SUBLEDGER_DATABASE_URL": "mysql://x"], "", "SUBLEDGER_DATABASE_URL"),
            ([:], "database: { url: \"mysql://x\" }", "database.url"),
        ] {
            #expect(refusedKey(yaml, environment: environment) == key)
        }
    }

    /// Secrets only from the environment: a password in the file's URL is refused (the same URL from
    /// SUBLEDGER_DATABASE_URL is the way to give one).
    @Test func aPasswordInTheFilesDatabaseURLIsRefusedAndAcceptedFromTheEnvironment() throws {
        let yaml = "database: { url: \"postgres://ledger:hunter2@db:5432/ledger\" }"
        do {
            _ = try ConfigurationLoader(environment: [:]).load(yaml: yaml)
            Issue.record("accepted a password in the file")
        } catch let error as ConfigurationError {
            #expect(error.key == "database.url")
            #expect(error.message.contains("SUBLEDGER_DATABASE_URL"))
            #expect(!error.message.contains("hunter2"))
        }
        let fromEnvironment = try ConfigurationLoader(environment: ["SUBLEDGER_DATABASE_URL": "postgres://ledger:hunter2@db:5432/ledger"]).load(yaml: "")
        guard case .postgres(let settings) = fromEnvironment.database else {
            Issue.record("SUBLEDGER_DATABASE_URL was not read as PostgreSQL")
            return
        }
        #expect(settings.password == "hunter2")
        // Refused however the password breaks the URL's syntax.
        #expect(refusedKey("database: { url: \"postgres://ledger:hun#ter2@db/ledger\" }") == "database.url")
        // Still refused when the environment overrides it: the file is shared and committed.
        #expect(refusedKey(yaml, environment: ["SUBLEDGER_DATABASE_URL": "postgres://ledger:hunter2@db:5432/ledger"]) == "database.url")
        #expect(refusedKey("apple:\n  apps:\n    - { bundle_id: a, environments: [Xcode], allow_unsigned_local: true }") == nil)
        #expect(refusedKey("apple:\n  apps:\n    - { bundle_id: a, environments: [Xcode, Sandbox], allow_unsigned_local: true }") == nil)
        // Unsigned data beside Production could rewrite a paying user's subscription: refused, in
        // one app or across two.
        #expect(refusedKey("apple:\n  apps:\n    - { bundle_id: a, app_apple_id: 1, environments: [Production, Xcode], allow_unsigned_local: true }") == "apple.apps[0].allow_unsigned_local")
        #expect(refusedKey("apple:\n  apps:\n    - { bundle_id: p, app_apple_id: 1 }\n    - { bundle_id: d, environments: [Xcode], allow_unsigned_local: true }") == "apple.apps[1].allow_unsigned_local")
        #expect(refusedKey("", environment: ["SUBLEDGER_APPLE_VERIFY_RECEIPT_SANDBOX_URL": "http://127.0.0.1:9/verifyReceipt"]) == nil)
        #expect(refusedKey("", environment: ["SUBLEDGER_APPLE_VERIFY_RECEIPT_SANDBOX_URL": "localhost:9"]) == "SUBLEDGER_APPLE_VERIFY_RECEIPT_SANDBOX_URL")
    }

    @Test func environmentNamesFollowTheDottedKeys() {
        let names = ConfigurationKey.all.map(\.environmentName)
        #expect(names.contains("SUBLEDGER_HTTP_PORT"))
        #expect(names.contains("SUBLEDGER_DATABASE_URL"))
        #expect(names.contains("SUBLEDGER_DATABASE_MIGRATE_ON_START"))
    }
}

@Suite("Configuration: apps, products, linking and API keys")
struct StructuredConfigurationTests {
    static let yaml = """
        apple:
          trusted_roots: []
          verify_receipt: { production_url: "http://127.0.0.1:1/verifyReceipt", sandbox_url: "http://127.0.0.1:1/sandbox" }
          apps:
            - bundle_id: com.example.app
              app_apple_id: 1234567890
              environments: [Production, Sandbox]
              shared_secret_env: APPLE_SHARED_SECRET
        products:
          pro.monthly: { entitlements: [pro] }
          pass.30days: { entitlements: [pro], duration_days: 30 }
        linking: { app_account_token: false, policy: keep }
        auth:
          keys:
            - { name: backend, scopes: [read, ingest], sha256: "2CF24DBA5FB0A30E26E83B2AC5B9E29E1B161E5C1FA7425E73043362938B9824" }
        """

    @Test func theIssueExampleLoads() throws {
        let configuration = try ConfigurationLoader(environment: ["APPLE_SHARED_SECRET": "s3cret"]).load(yaml: Self.yaml)
        #expect(configuration.apps.first?.bundleId == "com.example.app")
        #expect(configuration.apps.first?.appAppleId == 1_234_567_890)
        #expect(configuration.apps.first?.environments == ["Production", "Sandbox"])
        #expect(configuration.apps.first?.sharedSecret == "s3cret")
        #expect(configuration.catalog.entitlements(of: "pro.monthly") == ["pro"])
        #expect(configuration.catalog.product("pass.30days")?.durationDays == 30)
        #expect(configuration.linkPolicy == .keep)
        #expect(!configuration.linkAppAccountToken)
        #expect(configuration.apiKeys.first?.name == "backend")
        #expect(configuration.apiKeys.first?.sha256 == "2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824")
        #expect(configuration.verifyReceiptProductionURL == "http://127.0.0.1:1/verifyReceipt")
    }

    @Test(arguments: [
        ("apple:\n  apps:\n    - { bundle_id: a, colour: red }", "apple.apps[0].colour"),
        ("apple:\n  apps:\n    - { app_apple_id: 1 }", "apple.apps[0].bundle_id"),
        ("apple:\n  apps:\n    - { bundle_id: a, environments: [Staging] }", "apple.apps[0].environments"),
        ("apple:\n  apps:\n    - { bundle_id: a, shared_secret_env: MISSING_SECRET }", "apple.apps[0].shared_secret_env"),
        ("products:\n  p: { entitlements: [pro], duration_days: -3 }", "products.p.duration_days"),
        ("products:\n  p: { entitlements: [pro], duration_days: 106751991167300 }", "products.p.duration_days"),
        ("products:\n  p: { grants: [pro] }", "products.p.grants"),
        ("auth:\n  keys:\n    - { name: k, scopes: [write], sha256: \"2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824\" }", "auth.keys[0].scopes"),
        ("auth:\n  keys:\n    - { name: k, scopes: [read], sha256: short }", "auth.keys[0].sha256"),
        ("linking: { policy: share }", "linking.policy"),
        // The name is what events keep of the key they were recorded with.
        ("auth:\n  keys:\n    - { name: k, scopes: [read], sha256: \"2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824\" }\n    - { name: k, scopes: [admin], sha256: \"486ea46224d1bb4fb680f34f7c9ad96a8f24ec88be73ea8e5a6c65260e9cb8a7\" }", "auth.keys[1].name"),
        // A key without a scope could do nothing anywhere.
        ("auth:\n  keys:\n    - { name: k, scopes: [], sha256: \"2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824\" }", "auth.keys[0].scopes"),
        ("auth:\n  keys:\n    - { name: k, sha256: \"2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824\" }", "auth.keys[0].scopes"),
        // One secret for two keys: a request would only ever be the first (the hex's case does not matter).
        ("auth:\n  keys:\n    - { name: a, scopes: [read], sha256: \"2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824\" }\n    - { name: b, scopes: [admin], sha256: \"2CF24DBA5FB0A30E26E83B2AC5B9E29E1B161E5C1FA7425E73043362938B9824\" }", "auth.keys[1].sha256"),
        // A list or a mapping where one value belongs was read as absent: a pass without an end.
        ("products:\n  p: { entitlements: [pro], duration_days: [30] }", "products.p.duration_days"),
        ("apple:\n  apps:\n    - { bundle_id: a, app_apple_id: { id: 1 } }", "apple.apps[0].app_apple_id"),
        ("apple:\n  apps:\n    - { bundle_id: [a] }", "apple.apps[0].bundle_id"),
        // Apple's ids are positive: 0 or a negative id would never match a notification's.
        ("apple:\n  apps:\n    - { bundle_id: a, app_apple_id: 0 }", "apple.apps[0].app_apple_id"),
        ("apple:\n  apps:\n    - { bundle_id: a, app_apple_id: -5 }", "apple.apps[0].app_apple_id"),
        ("apple:\n  apps:\n    - { bundle_id: a, app_apple_id: 1.5 }", "apple.apps[0].app_apple_id"),
        // Unsigned local data is accepted only where allowed: without the flag it could never work.
        ("apple:\n  apps:\n    - { bundle_id: a, environments: [Sandbox, Xcode] }", "apple.apps[0].environments"),
        ("apple:\n  verify_receipt: { production_url: buy.itunes.apple.com/verifyReceipt }", "apple.verify_receipt.production_url"),
        ("apple:\n  verify_receipt: { sandbox_url: \"ftp://sandbox.itunes.apple.com/verifyReceipt\" }", "apple.verify_receipt.sandbox_url"),
    ])
    func badStructuredSettingsFailNamingTheKey(_ yaml: String, _ key: String) {
        #expect(refusedKey(yaml) == key)
    }

    /// The secret pasted where its hash belongs is told so, and not repeated in the message.
    @Test func aSecretInPlaceOfItsHashIsToldSoWithoutRepeatingIt() {
        let secret = "sl_Zx8fK2mQ9vT4wY7rB1nH5cJ3pL6dG0sA"
        do {
            _ = try ConfigurationLoader(environment: [:]).load(yaml: "auth:\n  keys:\n    - { name: k, scopes: [read], sha256: \(secret) }")
            Issue.record("loaded")
        } catch {
            #expect("\(error)".contains("auth.keys[0].sha256: must be the 64 hex digits `subledger keys hash` prints; this looks like the secret itself"), "\(error)")
            #expect(!"\(error)".contains(secret))
        }
    }

    /// A secret's variable named like an override (`SUBLEDGER_...`) is refused where it is named,
    /// set or not: once set it was refused as an unknown override, with no word of the key naming it.
    @Test(arguments: [
        ("apple:\n  apps:\n    - { bundle_id: a, shared_secret_env: SUBLEDGER_APPLE_SECRET }", "apple.apps[0].shared_secret_env"),
        ("apple:\n  verify_receipt: { shared_secret_env: SUBLEDGER_RECEIPT_SECRET }", "apple.verify_receipt.shared_secret_env"),
    ])
    func aSecretVariableNamedLikeAnOverrideIsRefusedWhereItIsNamed(yaml: String, key: String) {
        for environment in [[:], ["SUBLEDGER_APPLE_SECRET": "s", "SUBLEDGER_RECEIPT_SECRET": "s"]] {
            do {
                _ = try ConfigurationLoader(environment: environment).load(yaml: yaml)
                Issue.record("loaded with \(environment)")
            } catch let error as ConfigurationError {
                #expect(error.key == key, "\(error)")
                #expect(error.message.contains("variables starting SUBLEDGER_ are configuration overrides"), "\(error)")
            } catch {
                Issue.record("\(error)")
            }
        }
        // Without the prefix the same file loads.
        let fixed = yaml.replacingOccurrences(of: "SUBLEDGER_", with: "")
        #expect(throws: Never.self) { try ConfigurationLoader(environment: ["APPLE_SECRET": "s", "RECEIPT_SECRET": "s"]).load(yaml: fixed) }
    }

    /// The same name given through the key's own override is refused naming the override.
    @Test func aSecretVariableNamedLikeAnOverrideThroughTheEnvironmentIsRefused() throws {
        let environment = ["SUBLEDGER_APPLE_VERIFY_RECEIPT_SHARED_SECRET_ENV": "SUBLEDGER_X", "SUBLEDGER_X": "s"]
        do {
            _ = try ConfigurationLoader(environment: environment).load(yaml: "")
            Issue.record("loaded")
        } catch let error as ConfigurationError {
            #expect(error.key == "SUBLEDGER_APPLE_VERIFY_RECEIPT_SHARED_SECRET_ENV", "\(error)")
            #expect(error.message.contains("names SUBLEDGER_X, but variables starting SUBLEDGER_ are configuration overrides"), "\(error)")
        } catch {
            Issue.record("\(error)")
        }
        // A SUBLEDGER_TEST_ variable is no override, so it may hold the secret.
        let test = ["SUBLEDGER_APPLE_VERIFY_RECEIPT_SHARED_SECRET_ENV": "SUBLEDGER_TEST_SECRET", "SUBLEDGER_TEST_SECRET": "s"]
        #expect(try ConfigurationLoader(environment: test).load(yaml: "").verifyReceiptSharedSecret == "s")
    }

    /// The variables the project's own tooling sets are no overrides, so one left exported in a
    /// shell (`export SUBLEDGER_FUZZ=1` before `swift build`) does not stop every command; a name
    /// that only starts alike still is one, and refused as unknown.
    @Test(arguments: ["SUBLEDGER_TEST_ANYTHING", "SUBLEDGER_FUZZ", "SUBLEDGER_FUZZ_TARGET"])
    func theToolingsVariablesAreNoOverrides(_ name: String) throws {
        #expect(try ConfigurationLoader(environment: [name: "1"]).load(yaml: "").httpPort == 8080)
    }

    @Test(arguments: ["SUBLEDGER_FUZZY", "SUBLEDGER_TESTING"])
    func aNameThatOnlyStartsLikeTheToolingsIsAnUnknownOverride(_ name: String) {
        #expect(throws: ConfigurationError.self) { try ConfigurationLoader(environment: [name: "1"]).load(yaml: "") }
    }

    /// A secret variable set but empty (Docker Compose passes an unset `${VAR}` on as empty) is told
    /// apart from one not set, for either key that names one.
    @Test func anEmptySecretVariableIsToldApartFromAnUnsetOne() {
        let yaml = "apple:\n  verify_receipt: { shared_secret_env: RECEIPT_SECRET }\n  apps:\n    - { bundle_id: a, shared_secret_env: APP_SECRET }"
        let message = { (environment: [String: String]) -> String in
            do {
                _ = try ConfigurationLoader(environment: environment).load(yaml: yaml)
                return "loaded"
            } catch {
                return "\(error)"
            }
        }
        #expect(message([:]).contains("names APP_SECRET, which is not set in the environment"))
        #expect(message(["APP_SECRET": ""]).contains("names APP_SECRET, which is set but empty"))
        #expect(message(["APP_SECRET": "s", "RECEIPT_SECRET": ""]).contains("names RECEIPT_SECRET, which is set but empty"))
        #expect(message(["APP_SECRET": "s"]).contains("names RECEIPT_SECRET, which is not set in the environment"))
    }

    /// migrate, replay and audit never talk to Apple: they load the same file without the secrets it
    /// names, so an auditor's job is not given Apple's shared secret. serve still needs them.
    @Test func commandsThatNeedNoSecretsLoadTheFileWithoutThem() throws {
        let yaml = """
            apple:
              verify_receipt: { shared_secret_env: RECEIPT_SECRET }
              apps:
                - { bundle_id: com.example.app, shared_secret_env: APPLE_SHARED_SECRET, allow_unsigned_local: 0 }
            """
        let withoutSecrets = try ConfigurationLoader(environment: [:], needsSecrets: false).load(yaml: yaml)
        #expect(withoutSecrets.apps.map(\.bundleId) == ["com.example.app"])
        #expect(withoutSecrets.apps.first?.sharedSecret == nil)
        #expect(withoutSecrets.apps.first?.allowUnsignedLocal == false)
        #expect(throws: ConfigurationError.self) { try ConfigurationLoader(environment: [:]).load(yaml: yaml) }
        let served = try ConfigurationLoader(environment: ["APPLE_SHARED_SECRET": "s", "RECEIPT_SECRET": "r"]).load(yaml: yaml)
        #expect(served.apps.first?.sharedSecret == "s")
        #expect(served.verifyReceiptSharedSecret == "r")
    }
}

/// The key a refused configuration names; nil when it was accepted or failed some other way.
private func refusedKey(_ yaml: String, environment: [String: String] = [:]) -> String? {
    do {
        _ = try ConfigurationLoader(environment: environment).load(yaml: yaml)
        return nil
    } catch let error as ConfigurationError {
        return error.key
    } catch {
        Issue.record("unexpected error \(error)")
        return nil
    }
}
