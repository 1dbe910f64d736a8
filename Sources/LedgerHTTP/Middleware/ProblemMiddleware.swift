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
            let level: Logger.Level = problem.statusCode >= 500 ? .error : .info
            context.logger.log(level: level, "request failed", metadata: [
                "code": "\(problem.code)", "status": "\(problem.statusCode)", "error": "\(Problem.bounded("\(error)", to: 4 * Problem.detailLimit))",
                "method": "\(request.method.rawValue)", "route": "\(context.endpointPath ?? "none")",
            ])
            return try problem.response(from: request, context: context)
        }
    }
}
