import EventStore
import Testing
@testable import subledger

@Suite("Configuration: YAML file plus SUBLEDGER_* overrides")
struct ConfigurationLoaderTests {
    @Test func noFileAndNoEnvironmentGivesTheEmbeddedDefaults() throws {
        let configuration = try ConfigurationLoader(environment: [:]).load(yaml: "")
        #expect(configuration == SubledgerConfiguration())
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

    @Test(arguments: [
        ("http: { prot: 8080 }", "http.prot"),
        ("htp: { port: 8080 }", "htp.port"),
        ("http: { port: eighty }", "http.port"),
        ("http: { port: 70000 }", "http.port"),
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

    @Test func environmentNamesFollowTheDottedKeys() {
        let names = ConfigurationKey.all.map(\.environmentName)
        #expect(names.contains("SUBLEDGER_HTTP_PORT"))
        #expect(names.contains("SUBLEDGER_DATABASE_URL"))
        #expect(names.contains("SUBLEDGER_DATABASE_MIGRATE_ON_START"))
    }
}
