import HTTPTypes
import Metrics
import Synchronization

/// The metric handles of each route, method and status seen, made once: a handle made per request
/// would ask the metrics factory, which looks it up under a lock, every time.
final class RequestMetricsCache: Sendable {
    /// What a request's metrics are labelled with.
    struct RouteKey: Hashable, Sendable {
        var route: String
        var method: HTTPRequest.Method
        var status: Int
    }

    /// The handles for one `RouteKey`.
    struct RouteMetrics: Sendable {
        let requests: Counter
        let duration: Metrics.Timer

        init(_ key: RouteKey) {
            let dimensions = [
                ("http.route", key.route),
                ("http.request.method", key.method.rawValue),
                ("http.response.status_code", String(key.status)),
            ]
            requests = Counter(label: "hb.requests", dimensions: dimensions)
            duration = Metrics.Timer(label: "http.server.request.duration", dimensions: dimensions, preferredDisplayUnit: .seconds)
        }
    }

    private struct State {
        var routes: [RouteKey: RouteMetrics] = [:]
        var active: [HTTPRequest.Method: Meter] = [:]
    }

    private let state = Mutex(State())

    func route(_ key: RouteKey) -> RouteMetrics {
        state.withLock { state in
            if let metrics = state.routes[key] { return metrics }
            let metrics = RouteMetrics(key)
            state.routes[key] = metrics
            return metrics
        }
    }

    func active(method: HTTPRequest.Method) -> Meter {
        state.withLock { state in
            if let meter = state.active[method] { return meter }
            let meter = Meter(label: "http.server.active_requests", dimensions: [("http.request.method", method.rawValue)])
            state.active[method] = meter
            return meter
        }
    }
}
