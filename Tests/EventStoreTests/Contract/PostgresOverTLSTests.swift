import EventStore
import EventStoreTesting
import Foundation
import PostgresNIO
import Testing

/// A real PostgreSQL over TLS: `scripts/test` starts its throwaway server with TLS on, under a CA of
/// its own made by openssl (`SUBLEDGER_TEST_POSTGRES_CA`). `PostgresTLSTests` shows the handshake's
/// failures against a fake server; these show a real server's sessions over TLS, verified against
/// `sslrootcert`, for the pool and the change relay alike, as a hosted database would be reached.
@Suite("PostgreSQL over TLS, a real server")
struct PostgresOverTLSTests {
    /// The CA of the throwaway server's certificate; required wherever PostgreSQL is.
    static func caFile() throws -> String {
        let file = ProcessInfo.processInfo.environment["SUBLEDGER_TEST_POSTGRES_CA"].flatMap { $0.isEmpty ? nil : $0 }
        return try #require(file, "SUBLEDGER_TEST_POSTGRES_CA is not set: scripts/test starts PostgreSQL with TLS when openssl is installed")
    }

    @Test(.enabled(if: TestDatabases.dialects.contains(.postgres)))
    func theStoreAppendsReadsAndListensOverVerifiedTLS() async throws {
        guard let url = TestDatabases.postgresURL else { throw PostgreSQLRequired() }
        let ca = try Self.caFile()
        let name = "subledger-tls-\(UUID().lowercaseString.prefix(8))"
        try await withPostgresSchema(url: "\(url)?sslmode=require&sslrootcert=\(ca)&application_name=\(name)") { settings, _, raw in
            // Stops here when the server has no TLS, rather than waiting out the pool's acquire timeout.
            let problem = await PostgresEventStore.probe(settings)
            try #require(problem == nil, "\(String(describing: problem))")
            let store = PostgresEventStore(settings: settings, logger: TestDatabases.logger)
            try await withRunning(store) {
                try await store.migrate()
                let appended = try await store.append(to: "over-tls", [event("test.happened", ["n": 1])], expectedVersion: .noStream)
                #expect(appended.streamVersion == 1)
                #expect(try await store.readStream("over-tls").map(\.type) == ["test.happened"])
                // The change relay raises the signal once its LISTEN connection is up.
                await store.changes.wait(after: 0, timeout: .seconds(30))
                try #require(store.changes.generation > 0, "the change relay never listened")
                // Every session of this store, the pool's and the relay's, is a TLS one, as the server
                // sees it (the test's own raw connection, without TLS, has another name).
                let rows = try await raw.query(
                    """
                    SELECT count(*) FILTER (WHERE s.ssl), count(*)
                    FROM pg_stat_activity a JOIN pg_stat_ssl s ON s.pid = a.pid WHERE a.application_name = \(name)
                    """,
                    logger: TestDatabases.logger
                )
                var sessions: (tls: Int64, all: Int64) = (0, 0)
                for try await (tls, all) in rows.decode((Int64, Int64).self) {
                    sessions = (tls, all)
                }
                #expect(sessions.all >= 2, "the pool and the relay each hold a session")
                #expect(sessions.tls == sessions.all)
            }
        }
    }

    /// Pointed at another CA (a fake server's), a real server's certificate fails verification, and
    /// the failure names the file, as a wrong RDS bundle would be told.
    @Test(.enabled(if: TestDatabases.dialects.contains(.postgres)))
    func aRealServerWhoseCertificateTheRootsDidNotSignIsRefused() async throws {
        guard let url = TestDatabases.postgresURL else { throw PostgreSQLRequired() }
        _ = try Self.caFile()
        try await PostgresTLSTests.withServer { _, otherCA in
            let settings = try PostgresSettings(url: "\(url)?sslmode=require&sslrootcert=\(otherCA)")
            let problem = try #require(await PostgresEventStore.probe(settings))
            #expect(problem.message.hasPrefix("TLS handshake failed: the server's certificate must chain to the certificates in sslrootcert (\(otherCA))"), "\(problem)")
            #expect(problem.message.contains("CERTIFICATE_VERIFY_FAILED"), "\(problem)")
            #expect(problem.isPermanent)
        }
    }
}
