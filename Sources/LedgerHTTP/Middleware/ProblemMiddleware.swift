import Hummingbird
import Logging

/// Turns every error a route throws into an `application/problem+json` response with a stable code,
/// and logs it with the request id, the method and the route (its template, so no id from the path),
/// so a webhook's failure and a submission's can be told apart in the log alone.
public struct ProblemMiddleware<Context: RequestContext>: RouterMiddleware {
    let schema: SchemaDiagnosis?

    /// Creates the middleware; with `schema`, a store fault caused by missing migrations is answered
    /// as such (see ``SchemaDiagnosis``).
    public init(schema: SchemaDiagnosis? = nil) {
        self.schema = schema
    }

    public func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch {
            var problem = Problem(error)
            if let schema { problem = await schema.refine(problem) }
            if let routing = error as? HTTPError, routing.status == .notFound, routing.body == nil {
                // The router's own 404 said only "Not Found"; name what was asked for.
                problem.detail = "no endpoint serves \(request.method.rawValue) \(Problem.bounded(request.uri.path, to: 200)); the paths are listed in docs/api.md"
            }
            let level = Self.logLevel(of: problem)
            // A client's fault is logged as the client was told it; a server's with the error itself
            // (a 413's NIOTooManyBytesError named an internal type and a byte count it was not told).
            let said = problem.statusCode >= 500 ? "\(error)" : "\(problem.code): \(problem.detail)"
            context.logger.log(level: level, "request failed", metadata: [
                "code": "\(problem.code)", "status": "\(problem.statusCode)", "error": "\(Problem.bounded(said, to: 4 * Problem.detailLimit))",
                "method": "\(request.method.rawValue)", "route": "\(context.endpointPath ?? "none")",
            ])
            return try problem.response(from: request, context: context)
        }
    }

    /// Error for the server's failures, warning for a limit doing its work (the feed streams'), info
    /// for a client's fault: a refused extra stream is no failure to alert on (operator walkthrough).
    static func logLevel(of problem: Problem) -> Logger.Level {
        if problem.code == Problem.tooManyStreamsCode { return .warning }
        return problem.statusCode >= 500 ? .error : .info
    }
}
