import NIOCore
import NIOPosix

/// Binds the HTTP address once and lets it go, before `serve` opens its database, so an address
/// it cannot listen on (a port in use, a host the machine does not have) is refused before a new
/// SQLite file is made and migrated, as a refused configuration is.
///
/// The server binds again once the database is ready; another process may take the port in
/// between, and that start then fails as before. Port 0 (any free port) is not probed.
enum ListenProbe {
    /// Throws what binding `host:port` throws; returns once the probe's socket is closed.
    static func check(host: String, port: Int) async throws {
        guard port != 0 else { return }
        // SO_REUSEADDR as the server sets it, so a port left in TIME_WAIT by the last run passes
        // here as it does there; on Linux a port another socket listens on still fails.
        let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .bind(host: host, port: port)
            .get()
        try await channel.close()
    }
}
