import EventStore
import Hummingbird
import Logging

/// Builds the Hummingbird application that serves the ledger's HTTP API.
public enum LedgerApplication {
    /// Where to listen.
    public struct Settings: Sendable, Hashable {
        public var host: String
        public var port: Int

        /// Creates listen settings.
        public init(host: String, port: Int) {
            self.host = host
            self.port = port
        }
    }

    /// The router with every route the service serves.
    public static func router(store: any EventStore) -> Router<BasicRequestContext> {
        let router = Router()
        HealthRoutes(store: store).register(on: router)
        return router
    }

    /// An application ready to be run in a `ServiceGroup` (it stops on graceful shutdown).
    public static func make(
        settings: Settings,
        store: any EventStore,
        logger: Logger,
        onServerRunning: (@Sendable (Int) async -> Void)? = nil
    ) -> Application<RouterResponder<BasicRequestContext>> {
        Application(
            router: router(store: store),
            configuration: .init(address: .hostname(settings.host, port: settings.port), serverName: "subledger"),
            onServerRunning: { channel in
                await onServerRunning?(channel.localAddress?.port ?? settings.port)
            },
            logger: logger
        )
    }
}
