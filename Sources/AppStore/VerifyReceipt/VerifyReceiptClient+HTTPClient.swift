import AsyncHTTPClient
import NIOCore

extension VerifyReceiptClient {
    /// The async-http-client settings this client is meant to run on: a connection that cannot be
    /// made fails at once, within a 5-second connect timeout, instead of being retried inside the pool.
    ///
    /// - Why: the client already retries each URL with backoff. With the pool's own retries on (the
    ///   shared client's default), a refused connection was retried until each attempt's whole
    ///   deadline, so an unreachable Apple held a receipt submission about 46 seconds before its 502.
    ///   The cost: one failed connection attempt fails every request then waiting for that host, and
    ///   each of them spends one of its attempts on it.
    /// - Note: a host that does not accept the connection still takes the connect timeout on each
    ///   attempt, and one that accepts it and never answers the whole `requestTimeout`.
    public static var httpClientConfiguration: HTTPClient.Configuration {
        var configuration = HTTPClient.Configuration()
        configuration.connectionPool.retryConnectionEstablishment = false
        configuration.timeout.connect = .seconds(5)
        return configuration
    }

    /// Makes an `HTTPClient` with ``httpClientConfiguration`` on NIO's shared event loops; the caller
    /// owns it and must `shutdown()` it.
    public static func makeHTTPClient() -> HTTPClient {
        HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: httpClientConfiguration)
    }
}
