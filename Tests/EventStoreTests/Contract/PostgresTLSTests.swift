import EventStore
import EventStoreTesting
import Foundation
import Testing

/// `sslmode` and `sslrootcert` against a server that really does TLS (a fake PostgreSQL with its
/// own CA, since the throwaway test server runs without TLS): a connection trusting that CA through
/// `sslrootcert` completes the handshake and reads the server's answer; one that does not trust it,
/// or meets a certificate for another address, fails in the handshake, and a command stops at once.
@Suite("PostgreSQL TLS with sslrootcert")
struct PostgresTLSTests {
    /// Runs `body` with a fake server and a file holding its CA.
    static func withServer(
        certificateFor address: [UInt8] = [127, 0, 0, 1], offersTLS: Bool = true, acceptsLogin: Bool = false,
        _ body: (FakeTLSPostgres, String) async throws -> Void
    ) async throws {
        let server = try await FakeTLSPostgres(certificateFor: address, offersTLS: offersTLS, acceptsLogin: acceptsLogin)
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("subledger-ca-\(UUID().uuidString).pem")
        try server.caPEM.write(to: file, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: file) }
        do {
            try await body(server, file.path)
            try await server.close()
        } catch {
            try? await server.close()
            throw error
        }
    }

    static func settings(_ server: FakeTLSPostgres, _ options: String) throws -> PostgresSettings {
        try PostgresSettings(url: "postgres://subledger@127.0.0.1:\(server.port)/subledger_tls_probe?\(options)")
    }

    @Test(arguments: ["require", "prefer"])
    func aServerWhoseCAIsInSslrootcertIsTrusted(_ mode: String) async throws {
        try await Self.withServer { server, ca in
            let problem = await PostgresEventStore.probe(try Self.settings(server, "sslmode=\(mode)&sslrootcert=\(ca)"))
            // The server's answer came over TLS: the handshake succeeded with the CA from the file.
            #expect(problem?.message == "PostgreSQL answered: \(FakeTLSPostgres.answer) (3D000)")
            #expect(problem?.isPermanent == true)
        }
    }

    @Test func withoutSslrootcertTheSystemRootsDoNotTrustItAndTheFailureIsTheSettings() async throws {
        try await Self.withServer { server, _ in
            let problem = try #require(await PostgresEventStore.probe(try Self.settings(server, "sslmode=require")))
            #expect(problem.message.hasPrefix("TLS handshake failed: the server's certificate must chain to the system's trusted roots (or set sslrootcert) and name 127.0.0.1; "), "\(problem)")
            #expect(problem.message.contains("CERTIFICATE_VERIFY_FAILED"), "\(problem)")
            #expect(problem.isPermanent)
        }
    }

    @Test func aCertificateForAnotherAddressIsRefusedThoughItsCAIsTrusted() async throws {
        try await Self.withServer(certificateFor: [10, 0, 0, 1]) { server, ca in
            let problem = try #require(await PostgresEventStore.probe(try Self.settings(server, "sslmode=require&sslrootcert=\(ca)")))
            #expect(problem.message.hasPrefix("TLS handshake failed: the server's certificate must chain to the certificates in sslrootcert (\(ca)) and name 127.0.0.1; "), "\(problem)")
            #expect(problem.message.contains("failedToValidateHostname"), "\(problem)")
            #expect(problem.isPermanent)
        }
    }

    /// A server without TLS: `require` stops with what to change; `prefer` goes on in the clear and
    /// reads the server's answer.
    @Test func aServerWithoutTLSIsRefusedUnderRequireAndUsedUnderPrefer() async throws {
        try await Self.withServer(offersTLS: false) { server, _ in
            let refused = try #require(await PostgresEventStore.probe(try Self.settings(server, "sslmode=require")))
            #expect(refused.message == "the server does not offer TLS, which sslmode=require needs: turn ssl on in PostgreSQL, or use sslmode=prefer or disable")
            #expect(refused.isPermanent)
            let clear = await PostgresEventStore.probe(try Self.settings(server, "sslmode=prefer"))
            #expect(clear?.message == "PostgreSQL answered: \(FakeTLSPostgres.answer) (3D000)")
        }
    }

    /// A server that lets the client in and never answers (a pooler waiting for a server
    /// connection): the search_path check gives up after the attempt's time, so a command's start
    /// wait stays bounded, and says so as a passing problem.
    @Test(.timeLimit(.minutes(1)))
    func theSchemaCheckOfAServerThatNeverAnswersIsBounded() async throws {
        try await Self.withServer(offersTLS: false, acceptsLogin: true) { server, _ in
            let settings = try Self.settings(server, "sslmode=disable&search_path=ledger")
            // The default, long enough that a loaded machine still connects within it (300 ms once ran
            // out connecting, and 2 s once beside three debug servers and their probes).
            let problem = try #require(await PostgresEventStore.probe(settings))
            #expect(problem.message == "PostgreSQL accepted the connection but did not answer a query within 5.0 seconds", "\(problem)")
            #expect(!problem.isPermanent)
        }
    }

    /// The pool sets up its TLS apart from a direct connection (postgres-nio's client takes a
    /// configuration): its attempts complete the handshake with the CA from `sslrootcert` too, and
    /// read the server's answer, which the pool logs.
    @Test func thePoolTrustsTheCAInSslrootcertToo() async throws {
        try await Self.withServer { server, ca in
            let log = CapturedLog()
            let store = PostgresEventStore(settings: try Self.settings(server, "sslmode=require&sslrootcert=\(ca)&acquire_timeout=1"), logger: log.logger)
            // The pool's own line (the change relay's LISTEN connection logs the answer too).
            let poolLine: @Sendable (String) -> Bool = { $0.contains("Connection creation failed") && $0.contains(FakeTLSPostgres.answer) }
            try await withRunning(store) {
                await #expect(throws: EventStoreError.self) { _ = try await store.eventCount() }
                // On a loaded machine the pool's first attempt can outlast the lease's second; stopping
                // the store then cuts it off (clientClosedConnection) before the server has answered.
                let deadline = ContinuousClock.now + .seconds(20)
                while !log.lines.contains(where: poolLine), ContinuousClock.now < deadline {
                    try await Task.sleep(for: .milliseconds(50))
                }
            }
            #expect(log.lines.contains(where: poolLine), "\(log.lines)")
            #expect(!log.lines.contains { $0.contains("CERTIFICATE_VERIFY_FAILED") }, "\(log.lines)")
        }
    }
}
