import Hummingbird
import NIOCore
import Prometheus

/// `GET /metrics`: every metric in the Prometheus text format.
public struct MetricsRoutes: Sendable {
    let registry: PrometheusCollectorRegistry

    /// Creates the route over the registry `serve` bootstrapped swift-metrics with.
    public init(registry: PrometheusCollectorRegistry) {
        self.registry = registry
    }

    /// Adds `GET /metrics` to a router.
    public func register<Context: RequestContext>(on router: Router<Context>) {
        router.get("metrics") { _, _ in
            var bytes: [UInt8] = []
            registry.emit(into: &bytes)
            return Response(
                status: .ok,
                headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8"],
                body: .init(byteBuffer: ByteBuffer(bytes: bytes))
            )
        }
    }
}
