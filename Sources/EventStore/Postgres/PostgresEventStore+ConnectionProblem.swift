import Logging
import NIOSSL
import PostgresNIO

extension PostgresEventStore {
    /// Opens one connection to `settings` outside any pool, checks its `search_path` names a schema
    /// it can use, and closes it: nil when all is well, else what went wrong. Commands call it before
    /// they open their pool, so a setting PostgreSQL refuses is reported at once instead of after
    /// `acquire_timeout` of retried attempts, and a command whose pool later got no connection says
    /// what one more attempt found (the pool itself says only that none came in time). The
    /// connection and the check each take at most `connectTimeout`.
    public static func probe(_ settings: PostgresSettings, connectTimeout: Duration = .seconds(5)) async -> PostgresConnectionProblem? {
        do {
            var configuration = try settings.directConnectionConfiguration()
            configuration.options.connectTimeout = .init(connectTimeout)
            let quiet = Logger(label: "subledger.eventstore.postgres.diagnosis") { _ in SwiftLogNoOpLogHandler() }
            let connection = try await PostgresConnection.connect(configuration: configuration, id: 0, logger: quiet)
            let problem: PostgresConnectionProblem?
            do {
                problem = try await missingSchema(settings, on: connection, within: connectTimeout, logger: quiet)
            } catch {
                try? await connection.close()
                throw error
            }
            try? await connection.close()
            return problem
        } catch let error as PSQLError {
            if let message = error.serverInfo?[.message] {
                return PostgresConnectionProblem(
                    message: "PostgreSQL answered: \(message)" + (error.sqlState.map { " (\($0))" } ?? ""),
                    isPermanent: error.sqlState.map(Self.refusesTheSettings) ?? false
                )
            }
            // A TLS handshake that failed: the server's certificate does not chain to the trusted
            // roots or does not name the host, which trying again does not change.
            let raw = error.underlying.map { "\($0)" } ?? "\(error.code)"
            if error.underlying is NIOSSLError || error.underlying is NIOSSLExtraError {
                let roots = settings.tlsRootCertificates.map { "the certificates in sslrootcert (\($0))" } ?? "the system's trusted roots (or set sslrootcert)"
                return PostgresConnectionProblem(
                    message: "TLS handshake failed: the server's certificate must chain to \(roots) and name \(settings.host); \(raw)",
                    isPermanent: true
                )
            }
            if error.code == .sslUnsupported {
                return PostgresConnectionProblem(
                    message: "the server does not offer TLS, which sslmode=require needs: turn ssl on in PostgreSQL, or use sslmode=prefer or disable",
                    isPermanent: true
                )
            }
            let permanent = [PSQLError.Code.unsupportedAuthMechanism, .authMechanismRequiresPassword].contains(error.code)
            return PostgresConnectionProblem(message: raw, isPermanent: permanent)
        } catch {
            return PostgresConnectionProblem(message: "\(error)", isPermanent: false)
        }
    }

    /// PostgreSQL accepts a `search_path` naming no schema that exists, and then fails every
    /// statement with "no schema has been selected" (3F000), which does not name the setting. The
    /// query is bounded: behind a pooler it can wait for a server connection, and a command's start
    /// must not. When the time runs out the connection is closed, which ends the query.
    private static func missingSchema(
        _ settings: PostgresSettings, on connection: PostgresConnection, within limit: Duration, logger: Logger
    ) async throws -> PostgresConnectionProblem? {
        guard let searchPath = settings.searchPath else { return nil }
        let outcomes = await withTaskGroup(of: SchemaCheck.self) { group in
            group.addTask {
                do {
                    var current: String?
                    for try await schema in try await connection.query("SELECT current_schema()", logger: logger).decode(String?.self) {
                        current = schema
                    }
                    return .answered(current)
                } catch {
                    return .failed(error)
                }
            }
            group.addTask {
                do { try await Task.sleep(for: limit) } catch { return .failed(error) }
                try? await connection.close()
                return .timedOut
            }
            // The first to finish decides, but a query failing because the timer closed its
            // connection can finish before the timer does: every outcome is looked at.
            var outcomes: [SchemaCheck] = []
            if let first = await group.next() { outcomes.append(first) }
            group.cancelAll()
            for await outcome in group { outcomes.append(outcome) }
            return outcomes
        }
        if outcomes.contains(where: { if case .timedOut = $0 { true } else { false } }) {
            return PostgresConnectionProblem(message: "PostgreSQL accepted the connection but did not answer a query within \(limit)", isPermanent: false)
        }
        switch outcomes.first {
        case .answered(.none): break
        case .failed(let error): throw error
        default: return nil
        }
        return PostgresConnectionProblem(
            message: "search_path \(searchPath) names no schema that exists in database \(settings.database ?? settings.username) "
                + "or that \(settings.username) may use; create it first (CREATE SCHEMA; migrate creates only the tables) or grant USAGE on it",
            isPermanent: true
        )
    }

    /// SQLSTATEs a server answers a connection with when the settings are wrong, not the moment:
    /// class 28 (authentication, an unknown role), 3D000 (no such database) and 42501 (no CONNECT
    /// privilege on it).
    static func refusesTheSettings(_ sqlState: String) -> Bool {
        sqlState.hasPrefix("28") || sqlState == "3D000" || sqlState == "42501"
    }

    /// How the bounded `current_schema()` query ended.
    private enum SchemaCheck: Sendable {
        case answered(String?)
        case timedOut
        case failed(any Error)
    }
}
