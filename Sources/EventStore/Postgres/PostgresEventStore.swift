import Foundation
import Logging
import NIOCore
import NIOPosix
import NIOSSL
import PostgresNIO
import Synchronization

/// The production adapter: events in PostgreSQL through a postgres-nio connection pool.
///
/// `run()` must be running (in a `ServiceGroup` or a task group) for queries to be served; it also
/// holds one connection that LISTENs for appends by any process and raises `changes`.
public final class PostgresEventStore: EventStore {
    public let dialect = StorageDialect.postgres
    public let changes = ChangeSignal()
    /// Raised by this process's appends; `announceAppends` turns bursts of them into one NOTIFY.
    let localAppends = ChangeSignal()
    /// Stream heads this process wrote or read last, so most appends are one round trip.
    let heads = StreamHeadCache()

    let client: PostgresClient
    /// The pool with a deadline on waiting for a connection; every statement goes through it.
    let connections: ConnectionLeaser
    public let batchExecutor: (any TaskExecutor)?
    let logger: Logger
    let now: @Sendable () -> Date
    /// LISTENs for other processes' appends and NOTIFYs them of ours, on a connection outside the pool.
    let relay: PostgresChangeRelay
    /// Entitlement reads arriving together share one statement (see `ReadBatcher`).
    let relatedReads: ReadBatcher<RelatedDocumentRead, DocumentWithRelated>
    /// The pool's size (`pool_size`), which a rebuild's fill workers must not exceed.
    let poolSize: Int

    /// Creates a store for the given settings; nothing connects until `run()` starts.
    ///
    /// - Parameters:
    ///   - now: The clock that stamps `recorded_at`; tests pass a fixed one.
    ///   - listenRetryInterval: How long to wait before re-establishing a lost LISTEN connection.
    public init(
        settings: PostgresSettings,
        logger: Logger = Logger(label: "subledger.eventstore.postgres"),
        now: @escaping @Sendable () -> Date = { Date() },
        listenRetryInterval: Duration = .seconds(1)
    ) {
        var configuration = PostgresClient.Configuration(
            host: settings.host,
            port: settings.port,
            username: settings.username,
            password: settings.password,
            database: settings.database,
            tls: settings.poolTLS
        )
        configuration.options.maximumConnections = settings.poolSize
        configuration.options.minimumConnections = 0
        configuration.options.additionalStartupParameters = Self.startupParameters(settings)
        let executor = Self.connectionExecutor
        let client = PostgresClient(configuration: configuration, eventLoopGroup: executor.eventLoop, backgroundLogger: logger)
        self.client = client
        let connections = ConnectionLeaser(
            client: client, acquireTimeout: settings.acquireTimeout, logger: logger, poolStart: PoolStart()
        )
        self.connections = connections
        self.batchExecutor = executor
        self.relatedReads = ReadBatcher(
            maxBatchesInFlight: settings.readBatchesInFlight, maxBatchSize: 256, executor: executor
        ) { reads in
            try await Self.readRelated(reads, connections: connections, logger: logger)
        }
        self.logger = logger
        self.poolSize = settings.poolSize
        self.now = now
        self.relay = PostgresChangeRelay(
            settings: settings,
            changes: changes,
            localAppends: localAppends,
            retryInterval: listenRetryInterval,
            logger: logger
        )
    }

    public func run() async throws {
        await withDiscardingTaskGroup { group in
            group.addTask { await self.connections.poolStart.open { await self.client.run() } }
            group.addTask { await self.relay.run() }
        }
    }

    /// The connections' own event loop: one thread for the pool's sockets and the batches that use
    /// them, apart from the HTTP server's loops (see `batchExecutor`). Shared by every store in the
    /// process and never shut down, like NIO's singletons: a task that prefers it must always be
    /// able to resume, even after its store stopped.
    private static let connectionLoops = MultiThreadedEventLoopGroup(numberOfThreads: 1)
    private static let connectionExecutor = EventLoopTaskExecutor(eventLoop: connectionLoops.next())

    /// What every connection sets at start, the pool's, the change relay's and a diagnosis's alike
    /// (a value the server refuses fails them the same way).
    static func startupParameters(_ settings: PostgresSettings) -> [(String, String)] {
        // No JIT: a large batched read (80 users) is estimated above `jit_above_cost`, and compiling
        // it took milliseconds per statement. Reads fell from 20,000/s to 4,000-5,000/s with
        // PostgreSQL at 270-350 us per read; every statement here is a short index lookup.
        var parameters = [("jit", "off"), ("application_name", settings.applicationName)]
        if let searchPath = settings.searchPath {
            parameters.append(("search_path", searchPath))
        }
        return parameters
    }

    public func shutdown() async throws {}

    /// Runs `body` on a leased connection (see `ConnectionLeaser`), with postgres-nio failures mapped;
    /// `wait` shortens the wait for the connection below `acquire_timeout`.
    func leased<T>(waitingAtMost wait: Duration? = nil, _ body: (PostgresConnection) async throws -> T) async throws -> T {
        try await withStorageErrors { try await connections.withConnection(waitingAtMost: wait, body) }
    }

    /// Maps postgres-nio failures onto the store's typed errors.
    func withStorageErrors<T>(_ body: () async throws -> T) async throws -> T {
        do {
            return try await body()
        } catch {
            throw Self.unwrap(error)
        }
    }

    /// The error to report: the closure's own error out of a transaction wrapper, store errors for
    /// postgres-nio's.
    static func unwrap(_ error: any Error) -> any Error {
        switch error {
        case let error as PostgresTransactionError:
            if let closureError = error.closureError { return unwrap(closureError) }
            if let failure = error.beginError ?? error.commitError ?? error.rollbackError { return unwrap(failure) }
            return EventStoreError(.storageUnavailable, "PostgreSQL transaction failed")
        case let error as PSQLError:
            return error.storeError
        default:
            return error
        }
    }
}
