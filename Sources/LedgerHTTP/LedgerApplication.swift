import EventStore
import Hummingbird
import HummingbirdCore
import Ledger
import Logging
import NIOCore
import Prometheus

/// Builds the Hummingbird application that serves the ledger's HTTP API.
public enum LedgerApplication {
    /// Where to listen.
    public struct Settings: Sendable, Hashable {
        public var host: String
        public var port: Int
        /// How long a connection may stay idle (a slow client) before it is closed.
        public var idleTimeout: Duration
        /// How long a connection has to deliver its next whole request (a client trickling bytes).
        public var requestTimeout: Duration
        /// The most connections served at once; one more is answered 503 `too_many_connections`.
        public var maximumConnections: Int
        /// How many refused connections may be open at once, answered and waiting to be closed;
        /// past them the server accepts nothing until a connection closes (new ones wait in the
        /// listen backlog), so the descriptors in use never pass `maximumConnections` plus these.
        public var refusalHeadroom: Int
        /// How long a refused connection stays open after its answer, for the client to read it.
        public var refusalLinger: Duration
        /// The most NDJSON feed streams at once; one more is answered 503 `too_many_streams`.
        public var maximumFeedStreams: Int

        /// Creates listen settings.
        public init(
            host: String, port: Int, idleTimeout: Duration = .seconds(30), requestTimeout: Duration = .seconds(60),
            maximumConnections: Int = Settings.defaultMaximumConnections, refusalHeadroom: Int = 64,
            refusalLinger: Duration = .seconds(1), maximumFeedStreams: Int = Settings.defaultMaximumFeedStreams
        ) {
            self.host = host
            self.port = port
            self.idleTimeout = idleTimeout
            self.requestTimeout = requestTimeout
            self.maximumConnections = maximumConnections
            self.refusalHeadroom = refusalHeadroom
            self.refusalLinger = refusalLinger
            self.maximumFeedStreams = maximumFeedStreams
        }

        /// 64: a stalled stream holds a few megabytes until the write-stall timeout, and a feed has
        /// few readers (an export, an auditor, a follower per service).
        public static let defaultMaximumFeedStreams = 64

        /// 16,384, or fewer when the process may open fewer files: its open-file limit less 256
        /// descriptors (64 of them for refused connections, the rest for the database,
        /// verifyReceipt and logs), and at least 64.
        public static var defaultMaximumConnections: Int {
            min(16_384, max(64, OpenFileLimit.current - 256))
        }
    }

    /// The router with every route the service serves.
    public static func router(
        store: any EventStore,
        ledger: SubscriptionLedger?,
        keys: [APIKey],
        clock: any LedgerClock,
        metrics: PrometheusCollectorRegistry? = nil,
        maximumFeedStreams: Int = Settings.defaultMaximumFeedStreams
    ) -> Router<LedgerRequestContext> {
        // Every GET route answers HEAD too (uptime checks use it): the GET's answer without its body.
        let router = Router(context: LedgerRequestContext.self, options: .autoGenerateHeadEndpoints)
        // One stack, composed at compile time. Added one by one, each was a level of existential
        // calls on every request: 7 of the 79 executor switches an entitlement read made.
        router.addMiddleware {
            RequestIDMiddleware()
            // Requests by route and status, and their duration (swift-metrics; Prometheus in serve).
            RequestMetricsMiddleware()
            ProblemMiddleware(schema: SchemaDiagnosis(store: store))
        }
        HealthRoutes(store: store).register(on: router)
        if let metrics {
            MetricsRoutes(registry: metrics).register(on: router)
        }
        if let ledger {
            LedgerRoutes(ledger: ledger, keys: keys, clock: clock, maximumFeedStreams: maximumFeedStreams).register(on: router)
        }
        // Last, so it wraps only the answer for a request no route matched.
        router.add(middleware: MethodNotAllowedMiddleware(routes: router.routes, headForGet: true))
        return router
    }

    /// An application ready to be run in a `ServiceGroup` (it stops on graceful shutdown).
    public static func make(
        settings: Settings,
        store: any EventStore,
        ledger: SubscriptionLedger? = nil,
        keys: [APIKey] = [],
        clock: any LedgerClock = SystemClock(),
        metrics: PrometheusCollectorRegistry? = nil,
        logger: Logger,
        onServerRunning: (@Sendable (Int) async -> Void)? = nil
    ) -> Application<RouterResponder<LedgerRequestContext>> {
        // One count for the whole server, whichever event loop accepts a connection.
        let connections = ConnectionLimit(maximum: settings.maximumConnections, linger: Self.timeAmount(settings.refusalLinger))
        // Hummingbird's accept ceiling bounds the refused connections still lingering too.
        let accepting = MaximumAvailableConnections(connections.maximum + max(1, settings.refusalHeadroom), logger: logger)
        return Application(
            router: router(store: store, ledger: ledger, keys: keys, clock: clock, metrics: metrics, maximumFeedStreams: settings.maximumFeedStreams),
            server: HTTPServerBuilder { responder in
                LedgerHTTP1Channel(http1: HTTP1Channel(responder: responder, configuration: .init(
                    additionalChannelHandlers: [
                        UnparsableHeadHandler(logger: logger),
                        RequestDeadlineHandler(timeout: Self.timeAmount(settings.requestTimeout), logger: logger),
                        WriteStallHandler(timeout: Self.timeAmount(settings.requestTimeout), logger: logger),
                    ],
                    idleTimeout: Self.timeAmount(settings.idleTimeout),
                    httpDecoderConfiguration: .init(
                        maxHeaderFieldSize: RequestHeadLimits.fieldBytes, maxHeaderListSize: RequestHeadLimits.headBytes,
                        maxHeaderFieldCount: RequestHeadLimits.fieldCount
                    )
                )), limit: connections)
            },
            configuration: .init(
                address: .hostname(settings.host, port: settings.port), serverName: "subledger",
                availableConnectionsDelegate: accepting
            ),
            onServerRunning: { channel in
                await onServerRunning?(channel.localAddress?.port ?? settings.port)
            },
            logger: logger
        )
    }

    private static func timeAmount(_ duration: Duration) -> TimeAmount {
        let (seconds, attoseconds) = duration.components
        return .nanoseconds(seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
    }
}
