import HTTPTypes
import Hummingbird

/// Answers 405 `method_not_allowed`, naming the methods in `Allow`, when the API serves a request's
/// path under other methods; a path it does not serve at all stays a 404 `not_found`.
///
/// Add it after every route: Hummingbird applies a middleware only to the routes added after it, and
/// always to its not-found answer, so this one runs only when no route matched.
public struct MethodNotAllowedMiddleware<Context: RequestContext>: RouterMiddleware {
    private let routes: [ServedRoute]

    /// Creates the middleware for the routes a router serves (`Router.routes`, read once all are added).
    public init(routes: [Router<Context>.RouteDescription]) {
        self.routes = routes.map { ServedRoute(path: $0.path, method: $0.method) }
    }

    public func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let segments = request.uri.path.split(separator: "/")
        let allowed = routes.filter { $0.matches(segments) }.map(\.method)
        guard !allowed.isEmpty else { return try await next(request, context) }
        throw Problem.methodNotAllowed(request.method, allowed: allowed)
    }
}
