import Dispatch
import HTTPTypes
import Hummingbird
import Metrics

/// Counts requests by route, method and status and times them (swift-metrics), under the names
/// Hummingbird's `MetricsMiddleware` uses, so dashboards built on those keep working.
///
/// A request is recorded when its response is ready, not after its body is written: wrapping the
/// body to learn when it was written makes Hummingbird send the head and the body as two writes,
/// each a hop to the connection's event loop and a system call. So a streamed body (the NDJSON
/// feed) is timed to its first bytes, and every other response is a single buffer whose write
/// takes no measurable time.
public struct RequestMetricsMiddleware<Context: RequestContext>: RouterMiddleware {
    private let cache = RequestMetricsCache()

    /// Creates the middleware; its metrics go to whatever `MetricsSystem` is bootstrapped.
    public init() {}

    public func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let start = DispatchTime.now().uptimeNanoseconds
        let active = cache.active(method: request.method)
        active.increment()
        defer { active.decrement() }
        do {
            let response = try await next(request, context)
            let route = cache.route(RequestMetricsCache.RouteKey(
                route: context.endpointPath ?? "Unknown", method: request.method, status: response.status.code
            ))
            route.requests.increment()
            route.duration.recordNanoseconds(Int64(DispatchTime.now().uptimeNanoseconds - start))
            return response
        } catch {
            // Rare: `ProblemMiddleware`, inside this one, answers every error a route throws. So the
            // error counter is made here, and exists only for routes that have thrown.
            let status = (error as? any HTTPResponseError)?.status.code ?? HTTPResponse.Status.internalServerError.code
            let key = RequestMetricsCache.RouteKey(route: context.endpointPath ?? "NotFound", method: request.method, status: status)
            cache.route(key).requests.increment()
            Counter(label: "hb.request.errors", dimensions: [
                ("http.route", key.route), ("http.request.method", key.method.rawValue), ("error.type", String(status)),
            ]).increment()
            throw error
        }
    }
}
