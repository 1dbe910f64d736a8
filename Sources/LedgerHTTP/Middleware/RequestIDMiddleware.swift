import EventStore
import HTTPTypes
import Hummingbird

/// Gives each request an id (the client's `X-Request-ID` if sane, else a new one), puts it on every
/// log line of the request and echoes it in the response.
///
/// A new id is Hummingbird's per-request id (a random per-process prefix and a counter): a fresh UUID
/// read `/dev/urandom` on every request, a measurable share of a request's CPU.
public struct RequestIDMiddleware: RouterMiddleware {
    public typealias Context = LedgerRequestContext

    /// Creates the middleware.
    public init() {}

    public func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var context = context
        let offered = request.headers[.requestID].flatMap { $0.count <= 128 && !$0.isEmpty ? $0 : nil }
        context.requestID = offered ?? context.id
        context.logger[metadataKey: "request_id"] = .string(context.requestID)
        var response = try await next(request, context)
        response.headers[.requestID] = context.requestID
        return response
    }
}

extension HTTPField.Name {
    /// `X-Request-ID`.
    static let requestID = HTTPField.Name("X-Request-ID")!
}
