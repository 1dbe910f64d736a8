import AppStore
import ArgumentParser
import AsyncHTTPClient
import Foundation
import EventStore
import Hummingbird
import Ledger
import LedgerHTTP
import Logging
import Prometheus
import ServiceLifecycle
import UnixSignals

/// `subledger serve`: runs the HTTP service until SIGINT or SIGTERM, then shuts down gracefully.
struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Run the HTTP service (embedded SQLite by default: no set-up needed)."
    )

    @OptionGroup var options: ConfigOptions

    @Flag(name: .long, help: "Do not apply pending migrations at start (overrides database.migrate_on_start).")
    var noMigrate = false

    func run() async throws {
        var configuration = try options.load()
        if noMigrate { configuration.migrateOnStart = false }
        do {
            do {
                try await run(configuration)
            } catch {
                if let explained = ListenFailure.explain(error, host: configuration.httpHost, port: configuration.httpPort) { throw explained }
                throw await StorageDiagnosis.explain(error, url: configuration.database)
            }
        } catch let error as ConfigurationError {
            throw ConfigOptions.exit(error)
        }
    }

    private func run(_ configuration: SubledgerConfiguration) async throws {
        let logger = ProcessLogger.make(level: configuration.logLevel)
        let host = configuration.httpHost
        try await Self.serve(configuration, logger: logger) { port in
            // A machine-readable line so scripts (and tests) can find a port chosen with port 0.
            // Written unbuffered: a pipe reader must see it at once.
            FileHandle.standardOutput.write(Data("subledger listening on http://\(host):\(port)\n".utf8))
        }
    }

    /// How long a graceful stop (SIGTERM, SIGINT) waits for requests in flight before cancelling them:
    /// less than the 10 seconds `docker stop` waits before SIGKILL, so the store is still closed.
    static let maximumGracefulShutdown: Duration = .seconds(8)

    /// Opens the store, applies migrations if asked, and serves HTTP until the task is cancelled or a
    /// shutdown signal arrives. After the HTTP server come only the stop and SIGHUP notices, which end
    /// at once, so it is the first to stop serving.
    static func serve(
        _ configuration: SubledgerConfiguration,
        logger: Logger,
        signals: [UnixSignal] = [.sigterm, .sigint],
        onServerRunning: (@Sendable (Int) async -> Void)? = nil
    ) async throws {
        // Trapped first, so a SIGHUP while the configuration is checked or PostgreSQL awaited is held
        // for the notice, not the end of the process.
        let hangups = await UnixSignalsSequence(trapping: .sighup)
        // Bootstrapped before the ledger exists: the ledger makes its timers once, when it is made.
        let metrics = ProcessMetrics.registry
        // Before the database is opened (a SQLite file created): a configuration or an address
        // refused here leaves nothing behind.
        let verifier = try LedgerFactory.makeVerifier(configuration)
        try await ListenProbe.check(host: configuration.httpHost, port: configuration.httpPort)
        guard try await waitForDatabase(configuration.database, signals: signals, logger: logger) else {
            logger.notice("stopped while waiting for PostgreSQL")
            return
        }
        // Opening makes the file when there is none. With migrations applied the new, empty ledger is
        // said below; without them (--no-migrate) nothing said so, and a mistyped path left a stray
        // empty file answering 503.
        let isNew = configuration.database.namesMissingSQLiteFile
        let store = try await EventStoreFactory.open(configuration.database, logger: logger)
        if isNew, !configuration.migrateOnStart {
            logger.warning(
                "created an empty SQLite file, as none was there; with migrations off (--no-migrate or database.migrate_on_start: false) /ready answers 503 until subledger migrate runs against it; if the ledger is elsewhere, check database.url",
                metadata: ["database": "\(configuration.database.located)", "origin": "\(configuration.databaseOrigin)"]
            )
        }
        // Named on every start: a mistyped SQLite path opens a new, empty file, and this line is where
        // an operator sees which file that was.
        logger.info("database opened", metadata: ["database": "\(configuration.database.located)", "version": "\(SubledgerVersion.current)"])
        // verifyReceipt's connections: refused ones fail at once, so Apple being down is a prompt 502.
        let appleClient = VerifyReceiptClient.makeHTTPClient()
        do {
            try await serve(
                configuration, verifier: verifier, store: store, appleClient: appleClient, metrics: metrics,
                logger: logger, signals: signals, hangups: hangups, onServerRunning: onServerRunning
            )
        } catch {
            // The HTTP server could not bind, a migration failed...: that is what the process
            // reports, after closing the store (an open SQLite connection ends a debug build).
            try? await appleClient.shutdown()
            try? await store.shutdown()
            throw error
        }
        // Every service has ended, so no request is left to use the store or the client.
        try await appleClient.shutdown()
        try await store.shutdown()
        logger.info("stopped")
    }

    /// Waits for the database as every command does (`DatabaseWait`), except that a shutdown signal
    /// ends the wait: false. The service group, which handles signals once it runs, is not running
    /// yet, and as a container's first process subledger would otherwise not stop on SIGTERM (the
    /// kernel drops it for PID 1 without a handler) until the wait ran out.
    private static func waitForDatabase(_ url: DatabaseURL, signals: [UnixSignal], logger: Logger) async throws -> Bool {
        guard case .postgres = url else { return true }
        let stops = await UnixSignalsSequence(trapping: signals)
        return try await withThrowingTaskGroup(of: Bool.self) { group in
            group.addTask {
                try await DatabaseWait.untilReachable(url, logger: logger)
                return true
            }
            group.addTask {
                // Ends without a signal only when cancelled, once the wait is over.
                for await _ in stops { return false }
                return true
            }
            defer { group.cancelAll() }
            return try await group.next() ?? true
        }
    }

    /// Runs the service group on an open store and client; the caller closes both.
    private static func serve(
        _ configuration: SubledgerConfiguration,
        verifier: SignedDataVerifier,
        store: any EventStore,
        appleClient: HTTPClient,
        metrics: PrometheusCollectorRegistry,
        logger: Logger,
        signals: [UnixSignal],
        hangups: UnixSignalsSequence,
        onServerRunning: (@Sendable (Int) async -> Void)?
    ) async throws {
        let ledger = LedgerFactory.makeLedger(configuration, verifier: verifier, store: store, httpClient: appleClient, logger: logger)
        if configuration.apiKeys.isEmpty {
            logger.notice("no API keys configured (auth.keys): authenticated endpoints answer 401; see subledger keys generate")
        }
        var app = LedgerApplication.make(
            settings: .init(
                host: configuration.httpHost, port: configuration.httpPort,
                idleTimeout: .seconds(configuration.httpIdleTimeoutSeconds),
                requestTimeout: .seconds(configuration.httpRequestTimeoutSeconds),
                maximumConnections: configuration.httpMaxConnections ?? LedgerApplication.Settings.defaultMaximumConnections,
                maximumFeedStreams: configuration.httpMaxFeedStreams
            ),
            store: store,
            ledger: ledger,
            keys: configuration.apiKeys,
            metrics: metrics,
            logger: logger,
            onServerRunning: onServerRunning
        )
        if configuration.migrateOnStart {
            app.beforeServerStarts {
                let applied = try await store.migrate()
                if !applied.isEmpty {
                    logger.info("migrations applied", metadata: ["count": "\(applied.count)", "database": "\(configuration.database.located)"])
                }
                // The first migration makes the event tables: this is a new, empty ledger, which a
                // mistyped path also gives. Said so an operator expecting history looks at the path.
                if applied.contains(where: { $0.version == 1 }) {
                    logger.notice(
                        "a new, empty ledger: the database had no event tables; if it should hold events, check database.url",
                        metadata: ["database": "\(configuration.database.located)"]
                    )
                }
            }
        }
        app.beforeServerStarts {
            // Only once the schema is there: without it (--no-migrate, a migrate job still to run)
            // there are no events, and /ready says what is missing.
            let pending = try await store.pendingMigrations()
            guard pending.isEmpty else {
                logger.notice(
                    "the database lacks migrations: /ready answers 503, and so does a request that needs what they add, until subledger migrate applies them",
                    metadata: ["database": "\(configuration.database.located)", "pending": "\(pending.map(\.name).joined(separator: ", "))"]
                )
                return
            }
            let hidden = try await store.eventsAheadOfServer()
            guard hidden == 0 else { throw HiddenHistory(events: hidden) }
        }
        var groupConfiguration = ServiceGroupConfiguration(
            services: [
                .init(service: EventStoreService(store: store)),
                // Ends at once on SQLite, which has no other clock: not a failure.
                .init(service: ClockSkewMonitor(store: store, registry: metrics, logger: logger), successTerminationBehavior: .ignore),
                .init(service: app),
                // Ends with the graceful stop; its end is not a failure.
                .init(service: HangupNotice(logger: logger, hangups: hangups), successTerminationBehavior: .ignore),
                // Last, so it is told first; when it returns the group goes on stopping (not a failure).
                .init(service: ShutdownNotice(logger: logger, grace: Self.maximumGracefulShutdown), successTerminationBehavior: .ignore),
            ],
            gracefulShutdownSignals: signals,
            logger: logger
        )
        // A graceful stop waits for requests in flight, but not for ever: a slow client reading the
        // NDJSON feed held a stop for 88 seconds. After this the rest is cancelled.
        groupConfiguration.maximumGracefulShutdownDuration = Self.maximumGracefulShutdown
        try await ServiceGroup(configuration: groupConfiguration).run()
    }
}
