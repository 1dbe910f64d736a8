import Metrics
import Prometheus

/// The process's metrics registry: swift-metrics is bootstrapped once, the first time it is asked for.
enum ProcessMetrics {
    static let registry: PrometheusCollectorRegistry = {
        let registry = PrometheusCollectorRegistry()
        MetricsSystem.bootstrap(PrometheusMetricsFactory(registry: registry))
        return registry
    }()
}
