import Hummingbird
import Logging

/// Turns every error a route throws into an `application/problem+json` response with a stable code,
/// and logs it with the request id.
public struct ProblemMiddleware<Context: RequestContext>: RouterMiddleware {
    /// Creates the middleware.
    public init() {}

    public func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch {
            let problem = Problem(error)
            let level: Logger.Level = problem.statusCode >= 500 ? .error : .info
            context.logger.log(level: level, "request failed", metadata: [
                "code": "\(problem.code)", "status": "\(problem.statusCode)", "error": "\(Problem.bounded("\(error)", to: 4 * Problem.detailLimit))",
            ])
            return try problem.response(from: request, context: context)
        }
    }
}
