import HTTPTypes
import Hummingbird

/// Answers 405 `method_not_allowed`, naming the methods in `Allow`, when the API serves a request's
/// path under other methods; a path it does not serve at all stays a 404 `not_found`.
///
/// Add it after every route: Hummingbird applies a middleware only to the routes added after it, and
/// always to its not-found answer, so this one runs only when no route matched. The answer is counted
/// in the request metrics under the path's route, not under an unknown one.
public struct MethodNotAllowedMiddleware<Context: RequestContext>: RouterMiddleware {
    private let routes: [ServedRoute]

    /// Creates the middleware for the routes a router serves (`Router.routes`, read once all are added).
    /// With `headForGet`, a path served by GET is also said to allow HEAD, as a router built with
    /// `autoGenerateHeadEndpoints` answers it (those HEAD routes are made after `routes` is read).
    public init(routes: [Router<Context>.RouteDescription], headForGet: Bool = false) {
        var served = routes.map { ServedRoute(path: $0.path, method: $0.method) }
        if headForGet {
            let heads = Set(served.filter { $0.method == .head }.map(\.path.description))
            served += served.filter { $0.method == .get && !heads.contains($0.path.description) }
                .map { ServedRoute(path: $0.path, method: .head) }
        }
        self.routes = served
    }

    public func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let segments = request.uri.path.split(separator: "/")
        let matching = routes.filter { $0.matches(segments) }
        guard let first = matching.first else { return try await next(request, context) }
        context.coreContext.endpointPath.value = first.path.description
        throw Problem.methodNotAllowed(request.method, allowed: matching.map(\.method))
    }
}
