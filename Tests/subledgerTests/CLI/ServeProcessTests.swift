import EventStore
import EventStoreTesting
import Foundation
import NIOHTTP1
import SQLiteNIO
import Testing

@testable import subledger

/// The README's first command, end to end: `subledger serve` on a fresh directory with no set-up.
@Suite("subledger serve, migrate and audit as real processes")
struct ServeProcessTests {
    @Test func serveOnAFreshDirectoryAnswersHealthCreatesTheSQLiteFileAndStopsOnSIGTERM() async throws {
        try await withTemporaryDirectory { directory in
            // One key, so a read is authorised and reaches the ledger.
            let keys = "auth:\n  keys:\n    - { name: reader, scopes: [read], sha256: \(TestAPIKey.sha256) }\n"
            try keys.write(to: directory.appendingPathComponent("subledger.yaml"), atomically: true, encoding: .utf8)
            let server = try SubledgerProcess(["serve"], in: directory, environment: ["SUBLEDGER_HTTP_PORT": "0"])
            let port = try await server.waitForPort()
            let health = try await httpRequest("http://127.0.0.1:\(port)/health")
            #expect(health.status == 200)
            #expect(health.body.contains(#""status":"ok""#))
            let ready = try await httpRequest("http://127.0.0.1:\(port)/ready")
            #expect(ready.status == 200)
            #expect(ready.body.contains(#""database":"sqlite""#))
            #expect(FileManager.default.fileExists(atPath: directory.appendingPathComponent("subledger.sqlite").path))
            let unauthorized = try await httpRequest("http://127.0.0.1:\(port)/v1/users/u1/entitlements")
            #expect(unauthorized.status == 401)
            #expect(unauthorized.contentType == "application/problem+json")
            let read = try await httpRequest("http://127.0.0.1:\(port)/v1/users/u1/entitlements", bearer: TestAPIKey.secret)
            #expect(read.status == 200)
            #expect(try await httpRequest("http://127.0.0.1:\(port)/v1/users/u1/events", bearer: TestAPIKey.secret).status == 200)
            #expect(try await httpRequest("http://127.0.0.1:\(port)/v1/events", bearer: TestAPIKey.secret).status == 200)
            // A served path under another method is counted under its route, not an unknown one.
            #expect(try await httpRequest("http://127.0.0.1:\(port)/v1/users/u1/entitlements", method: .POST).status == 405)
            let metrics = try await httpRequest("http://127.0.0.1:\(port)/metrics")
            #expect(metrics.status == 200)
            #expect(metrics.body.contains(#"http_server_request_duration_count{http_route="/health""#))
            // Requests by route, method and status; no error series where nothing was thrown.
            for (method, status) in [("GET", 401), ("GET", 200), ("POST", 405)] {
                let series = #"hb_requests{http_route="/v1/users/{user_id}/entitlements",http_request_method="\#(method)",http_response_status_code="\#(status)"}"#
                #expect(MetricsSample.value(series, in: metrics.body) == 1, "\(method) \(status)")
            }
            #expect(!metrics.body.contains(#"http_route="Unknown""#))
            #expect(!metrics.body.contains("hb_request_errors"))
            // The ledger's own timers report too (they are made once, after the metrics system starts).
            for operation in ["read_entitlements", "read_user_events", "read_events"] {
                #expect(MetricsSample.value(#"subledger_database_duration_count{operation="\#(operation)"}"#, in: metrics.body) == 1, "\(operation)")
            }
            // The refusal counter is made with the server, so its series is there before any refusal.
            #expect(MetricsSample.value("subledger_connections_refused_total", in: metrics.body) == 0, "\(metrics.body)")

            server.signal(SIGTERM)
            #expect(try await server.waitForExit() == 0)
            // The stop is announced when it begins, with the time requests in flight have.
            #expect(server.standardError.contains("stopping: no new connections; requests in flight have up to 8 s to finish"))
            #expect(server.standardError.contains("stopped"))
            // Which file was opened is named in full: a mistyped path would have made a new one.
            let file = directory.appendingPathComponent("subledger.sqlite").resolvingSymlinksInPath().path
            #expect(server.standardError.contains("database opened"), "\(server.standardError)")
            #expect(server.standardError.contains("version=\(SubledgerVersion.current)"), "\(server.standardError)")
            #expect(server.standardError.contains("sqlite:\(file)"), "\(server.standardError)")
            // A fresh file is said to be a new, empty ledger (a mistyped path gives one too).
            #expect(server.standardError.contains("a new, empty ledger"), "\(server.standardError)")
        }
    }

    /// With verifyReceipt refusing connections, a receipt submission is answered 502 once the
    /// client's own attempts are spent (about 1.5 s of backoff), not after each attempt's whole
    /// 15-second deadline: the shared HTTP client retried a refused connection inside its pool, and
    /// this answer took about 46 seconds.
    @Test func aReceiptWhileVerifyReceiptRefusesConnectionsIsAPromptBadGateway() async throws {
        try await withTemporaryDirectory { directory in
            let yaml = """
                auth:
                  keys:
                    - { name: backend, scopes: [ingest], sha256: \(TestAPIKey.sha256) }
                apple:
                  verify_receipt: { production_url: "http://127.0.0.1:9/verifyReceipt", sandbox_url: "http://127.0.0.1:9/verifyReceipt" }

                """
            try yaml.write(to: directory.appendingPathComponent("subledger.yaml"), atomically: true, encoding: .utf8)
            let server = try SubledgerProcess(["serve"], in: directory, environment: ["SUBLEDGER_HTTP_PORT": "0"])
            let port = try await server.waitForPort()
            let started = ContinuousClock.now
            let answer = try await httpRequest(
                "http://127.0.0.1:\(port)/v1/apple/receipts", bearer: TestAPIKey.secret, method: .POST,
                json: Data(#"{"user_id":"u1","receipt_data":"MIIabc"}"#.utf8)
            )
            let waited = ContinuousClock.now - started
            #expect(answer.status == 502, "\(answer.body)")
            #expect(answer.body.contains(#""code":"apple_unavailable""#), "\(answer.body)")
            // Three attempts, each refused at once; one attempt's deadline alone is 15 s.
            #expect(waited < .seconds(12), "answered after \(waited)")
            #expect(server.standardError.contains("verifyReceipt transient failure"), "\(server.standardError)")
            // The wait on Apple is timed whole, its attempts and backoff included.
            let metrics = try await httpRequest("http://127.0.0.1:\(port)/metrics").body
            #expect(MetricsSample.value(#"subledger_verification_duration_count{kind="receipt"}"#, in: metrics) == 1, "\(metrics)")
            let seconds = try #require(MetricsSample.value(#"subledger_verification_duration_sum{kind="receipt"}"#, in: metrics), "\(metrics)")
            #expect(seconds >= 1 && seconds <= waited / .seconds(1), "timed \(seconds) s of a \(waited) wait")
            server.signal(SIGTERM)
            #expect(try await server.waitForExit() == 0)
        }
    }

    /// Which shared secret verifyReceipt gets, as `serve` reads it from the file and the
    /// environment: with two apps whose secrets differ, an unnamed receipt goes with the first
    /// app's, and its refusal asks the client to name the app; with `verify_receipt`'s own secret
    /// (the account's primary one, which Apple takes for every app), that one goes, and its refusal
    /// is the server's configuration. A named app's own secret goes either way.
    @Test func verifyReceiptGetsTheSecretTheConfigurationNames() async throws {
        try await RecordingVerifyReceipt.run { url, fake in
            for primary in [nil, "primary-secret"] as [String?] {
                try await withTemporaryDirectory { directory in
                    let yaml = """
                        auth:
                          keys:
                            - { name: backend, scopes: [ingest], sha256: \(TestAPIKey.sha256) }
                        apple:
                          verify_receipt: { production_url: "\(url)/production", sandbox_url: "\(url)/sandbox"\(primary == nil ? "" : ", shared_secret_env: PRIMARY_SECRET") }
                          apps:
                            - { bundle_id: com.example.app, environments: [Sandbox], shared_secret_env: APP_SECRET }
                            - { bundle_id: com.example.other, environments: [Sandbox], shared_secret_env: OTHER_SECRET }

                        """
                    try yaml.write(to: directory.appendingPathComponent("subledger.yaml"), atomically: true, encoding: .utf8)
                    var environment = ["SUBLEDGER_HTTP_PORT": "0", "APP_SECRET": "app-secret", "OTHER_SECRET": "other-secret"]
                    environment["PRIMARY_SECRET"] = primary
                    let server = try SubledgerProcess(["serve"], in: directory, environment: environment)
                    let port = try await server.waitForPort()
                    func submit(_ body: String) async throws -> (status: Int, body: String, contentType: String?) {
                        try await httpRequest("http://127.0.0.1:\(port)/v1/apple/receipts", bearer: TestAPIKey.secret, method: .POST, json: Data(body.utf8))
                    }
                    let start = fake.received.count
                    let unnamed = try await submit(#"{"user_id":"u1","receipt_data":"MIIabc"}"#)
                    let named = try await submit(#"{"user_id":"u1","receipt_data":"MIIabc","bundle_id":"com.example.other"}"#)
                    #expect(Array(fake.received.dropFirst(start)) == [primary ?? "app-secret", "other-secret"], "\(primary ?? "no primary")")
                    #expect(unnamed.status == (primary == nil ? 400 : 500), "\(unnamed.body)")
                    #expect(unnamed.body.contains(primary == nil ? #""code":"bundle_id_required""# : #""code":"shared_secret_rejected""#), "\(unnamed.body)")
                    #expect(named.status == 500, "\(named.body)")
                    #expect(named.body.contains(#""code":"shared_secret_rejected""#), "\(named.body)")
                    server.signal(SIGTERM)
                    #expect(try await server.waitForExit() == 0)
                }
            }
        }
    }

    /// SIGHUP (a `kill -HUP`, as a unit's reload command often sends, or a closed terminal) leaves `serve` running and says that a change
    /// needs a restart; it ended the process at once, with no graceful stop. The notice does not hold
    /// up a stop either.
    @Test func aHangupKeepsServeRunningAndSaysARestartAppliesChanges() async throws {
        try await withTemporaryDirectory { directory in
            let server = try SubledgerProcess(["serve"], in: directory, environment: ["SUBLEDGER_HTTP_PORT": "0"])
            let port = try await server.waitForPort()
            for expected in 1...2 {
                server.signal(SIGHUP)
                let deadline = ContinuousClock.now + .seconds(10)
                while server.standardError.components(separatedBy: "SIGHUP ignored").count - 1 < expected, ContinuousClock.now < deadline {
                    try await Task.sleep(for: .milliseconds(50))
                }
                #expect(server.standardError.components(separatedBy: "SIGHUP ignored").count - 1 == expected, "\(server.standardError)")
                #expect(try await httpRequest("http://127.0.0.1:\(port)/health").status == 200)
            }
            #expect(server.standardError.contains("restart it (SIGTERM, then start it again) to apply a change"), "\(server.standardError)")
            let stopping = ContinuousClock.now
            server.signal(SIGTERM)
            #expect(try await server.waitForExit() == 0)
            // Well inside the 8 s grace a service that ignored the stop would be given.
            #expect(ContinuousClock.now - stopping < .seconds(6), "stopped after \(ContinuousClock.now - stopping)")
        }
    }

    /// A configuration file that cannot be read is a refused configuration too (64), named, not a
    /// failure of the work (1) with Foundation's error text.
    @Test func aConfigurationFileThatCannotBeReadIsRefusedNamingIt() async throws {
        try await withTemporaryDirectory { directory in
            try FileManager.default.createDirectory(at: directory.appendingPathComponent("conf.d"), withIntermediateDirectories: true)
            let folder = try await SubledgerProcess.run(["migrate", "--config", "conf.d"], in: directory)
            #expect(folder.status == 64)
            #expect(folder.stderr.contains("conf.d is a directory, not a YAML file"), "\(folder.stderr)")
            try Data([0x68, 0x74, 0x74, 0x70, 0x3A, 0xFF, 0xFE]).write(to: directory.appendingPathComponent("latin.yaml"))
            let binary = try await SubledgerProcess.run(["migrate", "--config", "latin.yaml"], in: directory)
            #expect(binary.status == 64)
            #expect(binary.stderr.contains("latin.yaml is not UTF-8 text"), "\(binary.stderr)")
            #expect(!FileManager.default.fileExists(atPath: directory.appendingPathComponent("subledger.sqlite").path))
        }
    }

    @Test func serveRefusesABadConfigurationNamingTheKey() async throws {
        try await withTemporaryDirectory { directory in
            try "http:\n  prot: 8080\n".write(to: directory.appendingPathComponent("subledger.yaml"), atomically: true, encoding: .utf8)
            let result = try await SubledgerProcess.run(["serve"], in: directory)
            #expect(result.status == 64)
            #expect(result.stderr.contains("http.prot"))
            // The command line was fine: no usage text, which reads as a mistyped command.
            #expect(!result.stderr.contains("Usage:"))
            #expect(!FileManager.default.fileExists(atPath: directory.appendingPathComponent("subledger.sqlite").path))
        }
    }

    /// What only the verifier checks (a root file, an app it refuses) is checked before the database
    /// is opened: a refused start left a new, empty SQLite file behind. A production app without its
    /// Apple ID is named by its key in the file, not the library's field name.
    @Test func serveRefusesAppsAndRootsTheVerifierWouldBeforeOpeningTheDatabase() async throws {
        try await withTemporaryDirectory { directory in
            let database = directory.appendingPathComponent("subledger.sqlite").path
            for (yaml, said) in [
                ("apple:\n  apps:\n    - { bundle_id: a.b, environments: [Production] }\n",
                 "apple.apps[0].app_apple_id: is required when environments include Production"),
                ("apple:\n  trusted_roots: [missing-root.pem]\n", "apple.trusted_roots: cannot read missing-root.pem"),
            ] {
                try yaml.write(to: directory.appendingPathComponent("subledger.yaml"), atomically: true, encoding: .utf8)
                let result = try await SubledgerProcess.run(["serve"], in: directory)
                #expect(result.status == 64, "\(yaml)")
                #expect(result.stderr.contains(said), "\(result.stderr)")
                #expect(!result.stderr.contains("database opened"), "\(result.stderr)")
                #expect(!FileManager.default.fileExists(atPath: database), "\(yaml)")
            }
        }
    }

    /// With PostgreSQL unreachable at start, `serve` says so and exits after `acquire_timeout`
    /// (1 s here) instead of waiting in the connection pool; a supervisor can restart it.
    @Test func serveExitsNamingTheCauseWhenPostgreSQLCannotBeReached() async throws {
        try await withTemporaryDirectory { directory in
            let start = ContinuousClock.now
            let result = try await SubledgerProcess.run(["serve"], in: directory, environment: [
                "SUBLEDGER_HTTP_PORT": "0", "SUBLEDGER_DATABASE_URL": "postgres://subledger@127.0.0.1:1/none?acquire_timeout=1",
            ])
            #expect(result.status == 1)
            // Said by the wait before the pool opens: one notice, not a pool's line per attempt.
            #expect(result.stderr.contains("storage_unavailable: no PostgreSQL connection at 127.0.0.1:1 within 1.0 seconds (acquire_timeout): "), "\(result.stderr)")
            #expect(result.stderr.components(separatedBy: "waiting for PostgreSQL").count == 2, "\(result.stderr)")
            #expect(!result.stderr.contains("Connection creation failed"), "\(result.stderr)")
            #expect(ContinuousClock.now - start < .seconds(20))
        }
    }

    /// SIGTERM while `serve` waits for PostgreSQL at start stops it at once and cleanly (exit 0):
    /// the service group that handles signals does not run yet, and as a container's first process
    /// an unhandled SIGTERM is dropped, so `docker stop` would wait out `acquire_timeout`.
    @Test func sigtermWhileServeWaitsForPostgreSQLStopsIt() async throws {
        try await withTemporaryDirectory { directory in
            let server = try SubledgerProcess(["serve"], in: directory, environment: [
                "SUBLEDGER_HTTP_PORT": "0", "SUBLEDGER_DATABASE_URL": "postgres://subledger@127.0.0.1:1/none?acquire_timeout=600",
            ])
            let deadline = ContinuousClock.now + .seconds(60)
            while !server.standardError.contains("waiting for PostgreSQL") && ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(20))
            }
            #expect(server.standardError.contains("waiting for PostgreSQL"), "\(server.standardError)")
            // A SIGHUP meanwhile is held for the notice the running server gives, not the process's end.
            server.signal(SIGHUP)
            try await Task.sleep(for: .milliseconds(300))
            server.signal(SIGTERM)
            #expect(try await server.waitForExit() == 0)
            #expect(server.standardError.contains("stopped while waiting for PostgreSQL"), "\(server.standardError)")
        }
    }

    /// A second server on a port already taken, on SQLite, says why and exits 1, before it opens a
    /// database: one on a new path leaves no file behind (it left one, migrated and empty).
    @Test func serveOnAPortInUseSaysSoAndExitsCleanly() async throws {
        try await withTemporaryDirectory { directory in
            let first = try SubledgerProcess(["serve"], in: directory, environment: ["SUBLEDGER_HTTP_PORT": "0"])
            let port = try await first.waitForPort()
            let second = try await SubledgerProcess.run(["serve"], in: directory, environment: ["SUBLEDGER_HTTP_PORT": "\(port)"])
            #expect(second.status == 1)
            // The address and the setting to change, not only the system call's error.
            #expect(second.stderr.contains("cannot listen on 127.0.0.1:\(port): the address is already in use"), "\(second.stderr)")
            #expect(second.stderr.contains("http.port (SUBLEDGER_HTTP_PORT)"), "\(second.stderr)")
            #expect(!second.stderr.contains("Assertion failed"))
            // Refused before its database is opened: a new SQLite file is not made and migrated.
            let elsewhere = try await SubledgerProcess.run(["serve"], in: directory, environment: [
                "SUBLEDGER_HTTP_PORT": "\(port)", "SUBLEDGER_DATABASE_URL": "sqlite:elsewhere.sqlite",
            ])
            #expect(elsewhere.status == 1)
            #expect(elsewhere.stderr.contains("the address is already in use"), "\(elsewhere.stderr)")
            #expect(!elsewhere.stderr.contains("database opened"), "\(elsewhere.stderr)")
            #expect(!FileManager.default.fileExists(atPath: directory.appendingPathComponent("elsewhere.sqlite").path))
            first.signal(SIGTERM)
            #expect(try await first.waitForExit() == 0)
        }
    }

    /// A command that cannot connect to PostgreSQL says what the server answered, not only that no
    /// connection came in time ("down, unreachable or overloaded" for a server that is up and
    /// refusing an unknown database).
    @Test(.enabled(if: TestDatabases.dialects.contains(.postgres)))
    func migrateOnADatabaseThatDoesNotExistSaysWhatPostgreSQLAnswered() async throws {
        guard let url = TestDatabases.postgresURL, var components = URLComponents(string: url) else { throw PostgreSQLRequired() }
        components.path = "/subledger_no_such_database"
        // The server's own options (TLS, search path) kept. A refusal is not waited out: were it, this
        // test would take the minute and then fail on the log lines.
        components.queryItems = (components.queryItems ?? []).filter { $0.name != "acquire_timeout" } + [URLQueryItem(name: "acquire_timeout", value: "60")]
        let database = try #require(components.string)
        try await withTemporaryDirectory { directory in
            let result = try await SubledgerProcess.run(["migrate"], in: directory, environment: ["SUBLEDGER_DATABASE_URL": database])
            #expect(result.status == 1)
            #expect(result.stderr.contains(#"PostgreSQL answered: database "subledger_no_such_database" does not exist (3D000); check database.url"#), "\(result.stderr)")
            // Said at once: no pool retried it for acquire_timeout, logging each attempt.
            #expect(!result.stderr.contains("Connection creation failed"), "\(result.stderr)")
            #expect(!result.stderr.contains("waiting for PostgreSQL"), "\(result.stderr)")
        }
    }

    /// The read-only commands never migrate (an auditor's role may have no write rights): on a
    /// database without the schema they say to run migrate and exit 1, and leave it unmigrated;
    /// replay neither, on a database without the event tables. On a SQLite file that is not there
    /// (a mistyped path) they create none.
    @Test func replayCheckAndAuditVerifyOnADatabaseWithoutTheSchemaSayToMigrateAndChangeNothing() async throws {
        try await withTemporaryDirectory { directory in
            let file = directory.appendingPathComponent("subledger.sqlite").path
            // Nor does replay, which writes, but only over data that is there.
            // The message names the file in full and why that path: run in the wrong directory, a
            // command falls back on the default, and migrating there would make an empty ledger.
            let absolute = directory.resolvingSymlinksInPath().appendingPathComponent("subledger.sqlite").path
            for command in [["replay", "--check"], ["audit", "verify"], ["replay"]] {
                let result = try await SubledgerProcess.run(command, in: directory)
                #expect(result.status == 1, "\(command)")
                #expect(result.stderr.contains("no SQLite database at \(absolute) (its path is the default, as no configuration file was read"), "\(result.stderr)")
                #expect(!FileManager.default.fileExists(atPath: file), "\(command) created the file")
            }
            // A path from the file or from the environment is said to come from there.
            try "database: { url: \"sqlite:data/ledger.sqlite\" }\n".write(to: directory.appendingPathComponent("audit.yaml"), atomically: true, encoding: .utf8)
            let fromFile = try await SubledgerProcess.run(["audit", "verify", "--config", "audit.yaml"], in: directory)
            #expect(fromFile.status == 1)
            let named = directory.resolvingSymlinksInPath().appendingPathComponent("data/ledger.sqlite").path
            // The file named in full too: the report may be read far from the directory it ran in.
            let config = directory.resolvingSymlinksInPath().appendingPathComponent("audit.yaml").path
            #expect(fromFile.stderr.contains("no SQLite database at \(named) (its path is from database.url in \(config))"), "\(fromFile.stderr)")
            try "http: { port: 8081 }\n".write(to: directory.appendingPathComponent("nourl.yaml"), atomically: true, encoding: .utf8)
            let noURL = try await SubledgerProcess.run(["audit", "verify", "--config", "./nourl.yaml"], in: directory)
            #expect(noURL.stderr.contains("(its path is the default, as \(directory.resolvingSymlinksInPath().path)/nourl.yaml sets no database.url)"), "\(noURL.stderr)")
            let fromEnvironment = try await SubledgerProcess.run(["audit", "verify"], in: directory, environment: ["SUBLEDGER_DATABASE_URL": "sqlite:/nowhere/x.sqlite"])
            #expect(fromEnvironment.stderr.contains("no SQLite database at /nowhere/x.sqlite (its path is from SUBLEDGER_DATABASE_URL)"), "\(fromEnvironment.stderr)")
            // There migrate could not create it either, and the advice says why rather than suggesting it.
            #expect(fromEnvironment.stderr.contains("and the directory the command runs in; the directory /nowhere does not exist"), "\(fromEnvironment.stderr)")
            let noDirectory = try await SubledgerProcess.run(["migrate", "--config", "audit.yaml"], in: directory)
            #expect(noDirectory.status == 1)
            #expect(noDirectory.stderr.contains("cannot open SQLite database \(named): the directory \(named.dropLast("/ledger.sqlite".count)) does not exist (SQLite creates the file, not its directory)"), "\(noDirectory.stderr)")
            // A file that is not SQLite (a compressed backup, say) is named as such, and every
            // connection opened is closed first (a debug build asserted and crashed here).
            try Data("not a database, just text\n".utf8).write(to: directory.appendingPathComponent("junk.sqlite"))
            for command in [["audit", "verify"], ["migrate"], ["replay", "--check"]] {
                let junk = try await SubledgerProcess.run(command, in: directory, environment: ["SUBLEDGER_DATABASE_URL": "sqlite:junk.sqlite"])
                #expect(junk.status == 1, "\(command)")
                #expect(junk.stderr.contains("cannot open SQLite database \(directory.resolvingSymlinksInPath().path)/junk.sqlite: the file is not a SQLite database"), "\(command): \(junk.stderr)")
                #expect(!junk.stderr.contains("Assertion failed"), "\(command)")
            }
            // An empty file: a database without the schema. replay, which migrates a database
            // behind, gives none to a database without the event tables (no history to fold).
            #expect(FileManager.default.createFile(atPath: file, contents: nil))
            for command in [["replay", "--check"], ["audit", "verify"], ["replay"]] {
                let result = try await SubledgerProcess.run(command, in: directory)
                #expect(result.status == 1, "\(command)")
                // replay --check needs every migration; the others only the event tables, and say so.
                let needed = command == ["replay", "--check"]
                    ? "lacks 3 migration(s) this build needs (0001_events.sql, 0002_rejections.sql, 0003_rejections_request_id.sql)"
                    : "has no event tables (migration 0001_events.sql), which \(command.joined(separator: " ")) reads"
                #expect(result.stderr.contains(needed), "\(result.stderr)")
                #expect(result.stderr.contains("run subledger migrate before \(command.joined(separator: " "))"), "\(result.stderr)")
                // A live database copied without its -wal file looks like this: said before migrate.
                #expect(result.stderr.contains("If this is a copy of a live database, it may lack its -wal file (\(file)-wal)"), "\(result.stderr)")
                #expect(!result.stderr.contains("Assertion failed"))
            }
            // Nothing was applied behind the operator's back.
            let migrate = try await SubledgerProcess.run(["migrate"], in: directory)
            #expect(migrate.stdout.contains("applied 0001_events.sql"))
            // The file was there without tables or a -wal: migrate says what that may have been.
            #expect(migrate.stderr.contains("was there but held no event tables; if it is a copy of a live database made without its -wal file, it is now an empty ledger"), "\(migrate.stderr)")
            let check = try await SubledgerProcess.run(["replay", "--check"], in: directory)
            #expect(check.status == 0)
            #expect(check.stderr.contains("replay --check: comparing 0 documents with the live read models"), "\(check.stderr)")
            let rebuild = try await SubledgerProcess.run(["replay"], in: directory)
            #expect(rebuild.status == 0)
            #expect(rebuild.stderr.contains("replay: writing 0 documents in place of the live read models"), "\(rebuild.stderr)")
            #expect(rebuild.stdout.contains("read models rebuilt and swapped in"), "\(rebuild.stdout)")
            // A schema one migration behind: the audit reads only the events, so it runs; replay
            // --check compares read models this build writes, so it asks for the migration.
            let raw = try await SQLiteConnection.open(storage: .file(path: directory.appendingPathComponent("subledger.sqlite").path))
            _ = try await raw.query("DELETE FROM schema_migrations WHERE version = 2")
            try await raw.close()
            #expect(try await SubledgerProcess.run(["audit", "verify"], in: directory).status == 0)
            let behind = try await SubledgerProcess.run(["replay", "--check"], in: directory)
            #expect(behind.status == 1)
            #expect(behind.stderr.contains("lacks 1 migration(s) this build needs (0002_rejections.sql)"))
        }
    }

    /// A database a newer build migrated, this build rolled back to: `replay` rebuilds it (it
    /// migrates only when this build's own migrations are missing) and `replay --check` compares,
    /// while `migrate` still stops, saying how to run this build on it (re-test: the documented
    /// rollback step "run the older build's replay" stopped at the newer migration).
    @Test func replayRunsOnADatabaseANewerBuildMigrated() async throws {
        try await withTemporaryDirectory { directory in
            #expect(try await SubledgerProcess.run(["migrate"], in: directory).status == 0)
            let raw = try await SQLiteConnection.open(storage: .file(path: directory.appendingPathComponent("subledger.sqlite").path))
            _ = try await raw.query("INSERT INTO schema_migrations (version, name, checksum, applied_at) VALUES (9999, '9999_from_a_newer_build.sql', 'x', 0)")
            try await raw.close()
            let rebuild = try await SubledgerProcess.run(["replay"], in: directory)
            #expect(rebuild.status == 0, "\(rebuild.stderr)")
            #expect(rebuild.stdout.contains("read models rebuilt and swapped in"), "\(rebuild.stdout)")
            #expect(try await SubledgerProcess.run(["replay", "--check"], in: directory).status == 0)
            let migrate = try await SubledgerProcess.run(["migrate"], in: directory)
            #expect(migrate.status == 1)
            #expect(migrate.stderr.contains("start serve with --no-migrate"), "\(migrate.stderr)")
        }
    }

    /// Started with migrations off (a separate migrate job), the server is alive but not ready until
    /// the schema is there, and a request that reaches the missing tables meanwhile is told so as a
    /// passing 503 (Apple retries), not a 500 with SQL's "no such table".
    @Test func readyIs503UntilTheSchemaIsMigratedWhenServeDoesNotMigrate() async throws {
        try await withTemporaryDirectory { directory in
            let yaml = """
                apple:
                  apps:
                    - { bundle_id: com.example.app, environments: [Sandbox], shared_secret_env: TEST_APPLE_SECRET }
                products:
                  pro.monthly: { entitlements: [pro] }
                auth:
                  keys:
                    - { name: backend, scopes: [read, admin], sha256: \(TestAPIKey.sha256) }

                """
            try yaml.write(to: directory.appendingPathComponent("subledger.yaml"), atomically: true, encoding: .utf8)
            let server = try SubledgerProcess(["serve"], in: directory, environment: [
                "SUBLEDGER_HTTP_PORT": "0", "SUBLEDGER_DATABASE_MIGRATE_ON_START": "false", "TEST_APPLE_SECRET": "s3cret",
            ])
            let port = try await server.waitForPort()
            #expect(try await httpRequest("http://127.0.0.1:\(port)/health").status == 200)
            let notReady = try await httpRequest("http://127.0.0.1:\(port)/ready")
            #expect(notReady.status == 503)
            #expect(notReady.contentType == "application/problem+json")
            #expect(notReady.body.contains("run subledger migrate"))
            let entitlements = "http://127.0.0.1:\(port)/v1/users/u1/entitlements"
            let grant = Data(#"{"entitlement": "pro", "expires_at": "2030-01-01T00:00:00Z", "reason": "support"}"#.utf8)
            for (method, url, body) in [
                (HTTPMethod.GET, entitlements, nil), (.GET, "http://127.0.0.1:\(port)/v1/events", nil),
                (.POST, "http://127.0.0.1:\(port)/v1/users/u1/grants", grant),
            ] {
                let early = try await httpRequest(url, bearer: TestAPIKey.secret, method: method, json: body)
                #expect(early.status == 503, "\(method) \(url): \(early.body)")
                #expect(early.body.contains(#""code":"storage_unavailable""#), "\(early.body)")
                #expect(early.body.contains("lacks 3 migration(s) this build needs (0001_events.sql, 0002_rejections.sql, 0003_rejections_request_id.sql); run subledger migrate"), "\(early.body)")
            }
            // Apple's webhook too, so Apple retries it, and its ingest is counted as answered.
            let v1 = Data("""
                {"notification_type": "DID_RENEW", "bid": "com.example.app", "password": "s3cret", "environment": "Sandbox",
                 "unified_receipt": {"status": 0, "environment": "Sandbox", "latest_receipt_info": [{"quantity": "1",
                  "product_id": "pro.monthly", "transaction_id": "2000", "original_transaction_id": "2000",
                  "purchase_date_ms": "1795000000000", "expires_date_ms": "1797000000000"}]}}
                """.utf8)
            let webhook = try await httpRequest("http://127.0.0.1:\(port)/v1/apple/notifications/v1", method: .POST, json: v1)
            #expect(webhook.status == 503, "\(webhook.body)")
            #expect(webhook.body.contains("run subledger migrate"), "\(webhook.body)")
            // A body it refuses too: its refusal cannot be kept yet (no rejections table), so it is not
            // answered 400, which Apple would not send again.
            let refused = try await httpRequest(
                "http://127.0.0.1:\(port)/v1/apple/notifications/v2", method: .POST, json: Data(#"{"signedPayload":"a.b.c"}"#.utf8)
            )
            #expect(refused.status == 503, "\(refused.body)")
            #expect(refused.body.contains("run subledger migrate"), "\(refused.body)")
            let counted = try await httpRequest("http://127.0.0.1:\(port)/metrics")
            for version in ["v1", "v2"] {
                let series = #"subledger_ingest_total{endpoint="POST /v1/apple/notifications/\#(version)",result="storage_unavailable"}"#
                #expect(MetricsSample.value(series, in: counted.body) == 1, "\(counted.body)")
            }
            #expect(try await SubledgerProcess.run(["migrate"], in: directory).status == 0)
            #expect(try await httpRequest("http://127.0.0.1:\(port)/ready").status == 200)
            #expect(try await httpRequest(entitlements, bearer: TestAPIKey.secret).status == 200)
            #expect(try await httpRequest("http://127.0.0.1:\(port)/v1/apple/notifications/v1", method: .POST, json: v1).status == 200)
            // Once migrated, the same body is refused as such, and its refusal kept.
            let again = try await httpRequest(
                "http://127.0.0.1:\(port)/v1/apple/notifications/v2", method: .POST, json: Data(#"{"signedPayload":"a.b.c"}"#.utf8)
            )
            #expect(again.status == 400, "\(again.body)")
            server.signal(SIGTERM)
            #expect(try await server.waitForExit() == 0)
            // The log said so at start, naming what the database lacked.
            #expect(server.standardError.contains("the database lacks migrations"), "\(server.standardError)")
            #expect(server.standardError.contains("0001_events.sql, 0002_rejections.sql, 0003_rejections_request_id.sql"), "\(server.standardError)")
            // No file was there: serve made an empty one, and said so (a mistyped path looks like this).
            #expect(server.standardError.contains("created an empty SQLite file, as none was there"), "\(server.standardError)")
        }
    }

    @Test func migrateThenAuditVerifyPassesAndFailsAfterTampering() async throws {
        try await withTemporaryDirectory { directory in
            let migrate = try await SubledgerProcess.run(["migrate"], in: directory)
            #expect(migrate.status == 0)
            #expect(migrate.stdout.contains("applied 0001_events.sql"))
            // The report begins with the database, and says when migrate made the file.
            let located = URL(fileURLWithPath: directory.appendingPathComponent("subledger.sqlite").path).resolvingSymlinksInPath().path
            // With where its path came from: no configuration file here, so the default.
            #expect(migrate.stdout.hasPrefix("sqlite:\(located): created (no file was there; its path is the default, as "), "\(migrate.stdout)")
            let again = try await SubledgerProcess.run(["migrate"], in: directory)
            #expect(again.stdout == "sqlite:\(located): schema is up to date\n", "\(again.stdout)")

            let path = directory.appendingPathComponent("subledger.sqlite").path
            let store = try await SQLiteEventStore.open(path: path)
            _ = try await store.append(to: "subscription-1", [
                NewEvent(type: "t", data: Data(#"{"n":1}"#.utf8)),
                NewEvent(type: "t", data: Data(#"{"n":2}"#.utf8)),
            ], expectedVersion: .any)
            try await store.shutdown()

            let clean = try await SubledgerProcess.run(["audit", "verify"], in: directory)
            #expect(clean.status == 0)
            // The report names the database it checked, in full.
            #expect(clean.stdout.contains("sqlite:\(located): checked 2 events in 1 streams (subledger \(SubledgerVersion.current))"), "\(clean.stdout)")
            #expect(clean.stdout.contains("all hash chains are intact"))

            let raw = try await SQLiteConnection.open(storage: .file(path: path))
            _ = try await raw.query("DROP TRIGGER events_immutable_update")
            _ = try await raw.query(#"UPDATE events SET data = '{"n":20}' WHERE stream_version = 2"#)
            try await raw.close()

            let broken = try await SubledgerProcess.run(["audit", "verify"], in: directory)
            #expect(broken.status == 1)
            // The findings are the report: on standard output, so a saved report holds them.
            #expect(broken.stdout.contains("broken link:"), "\(broken.stdout)")
            #expect(broken.stdout.contains("stream subscription-1 version 2"), "\(broken.stdout)")
            #expect(broken.stdout.contains("hash_mismatch (its stored hash is not the hash of its stored fields: the row was changed after it was written)"), "\(broken.stdout)")
            #expect(broken.stdout.contains("1 stream(s) have a broken hash chain"))
            #expect(broken.stderr.contains("Error: 1 stream(s) have a broken hash chain"), "\(broken.stderr)")

            // A read-model document no rebuild makes: replay --check reports it on standard output too.
            let edit = try await SQLiteConnection.open(storage: .file(path: path))
            _ = try await edit.query(#"INSERT INTO projections (model, key, data) VALUES ('entitlements', 'mallory', '{}')"#)
            try await edit.close()
            let check = try await SubledgerProcess.run(["replay", "--check"], in: directory)
            #expect(check.status == 1)
            #expect(check.stdout.contains("sqlite:\(located): folded"), "\(check.stdout)")
            #expect(check.stdout.contains("difference: ") && check.stdout.contains("mallory"), "\(check.stdout)")
            #expect(check.stdout.contains("1 read-model document(s) differ from a rebuild"), "\(check.stdout)")
            #expect(check.stderr.contains("Error: 1 read-model document(s) differ from a rebuild"), "\(check.stderr)")
        }
    }

    @Test(.enabled(if: ProcessInfo.processInfo.environment["SUBLEDGER_TEST_POSTGRES_URL"] != nil || ProcessInfo.processInfo.environment["CI"] == "true"))
    func serveOnPostgreSQLMigratesAndIsReady() async throws {
        guard let url = ProcessInfo.processInfo.environment["SUBLEDGER_TEST_POSTGRES_URL"] else {
            Issue.record("PostgreSQL is required under CI=true: set SUBLEDGER_TEST_POSTGRES_URL (scripts/test does)")
            return
        }
        // A private database, so this test's migration does not meet another's.
        let database = "serve_\(UUID().uuidString.prefix(8).lowercased())"
        try await PostgresAdmin.createDatabase(database, url: url)
        let databaseURL = try PostgresAdmin.url(url, database: database)
        try await withTemporaryDirectory { directory in
            let server = try SubledgerProcess(["serve"], in: directory, environment: [
                "SUBLEDGER_HTTP_PORT": "0", "SUBLEDGER_DATABASE_URL": databaseURL,
            ])
            let port = try await server.waitForPort()
            let ready = try await httpRequest("http://127.0.0.1:\(port)/ready")
            #expect(ready.status == 200)
            #expect(ready.body.contains(#""database":"postgres""#))
            server.signal(SIGINT)
            #expect(try await server.waitForExit() == 0)
            let audit = try await SubledgerProcess.run(["audit", "verify"], in: directory, environment: ["SUBLEDGER_DATABASE_URL": databaseURL])
            #expect(audit.status == 0)
            #expect(audit.stdout.contains("checked 0 events"))

            // An event from another cluster's history (what pg_dump restored elsewhere looks like):
            // its transaction id is ahead of this server's, so readers would never see it.
            try await PostgresAdmin.execute("""
                INSERT INTO events (event_id, stream_id, stream_version, type, schema_version, data, metadata, recorded_at, hash, tx_id)
                VALUES ('6d1f1a58-7a39-4c3b-9d8e-2f6c1b0e9a11', 'restored', 1, 'test', 1, '{}', '{}', now(), '\\x00',
                        ((pg_current_xact_id()::text)::numeric + 1000000)::text::xid8)
                """, url: databaseURL)
            let refused = try await SubledgerProcess.run(["serve"], in: directory, environment: [
                "SUBLEDGER_HTTP_PORT": "0", "SUBLEDGER_DATABASE_URL": databaseURL,
            ])
            #expect(refused.status != 0)
            #expect(refused.stderr.contains("1 stored event(s) carry transaction ids this PostgreSQL server has not reached"), "\(refused.stderr)")
        }
    }
}
