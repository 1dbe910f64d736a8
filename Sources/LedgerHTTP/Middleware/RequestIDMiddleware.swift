import EventStore
import HTTPTypes
import Hummingbird

/// Gives each request an id (the client's `X-Request-ID` if ``isSane(_:)``, else a new one), puts it
/// on every log line of the request and echoes it in the response. `LineLogHandler` writes it as
/// `request_id`; another log handler gets a generated id under Hummingbird's `hb.request.id`.
///
/// A new id is Hummingbird's per-request id (a random per-process prefix and a counter): a fresh UUID
/// read `/dev/urandom` on every request, a measurable share of a request's CPU.
public struct RequestIDMiddleware: RouterMiddleware {
    public typealias Context = LedgerRequestContext

    /// Creates the middleware.
    public init() {}

    public func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var context = context
        if let offered = request.headers[.requestID], Self.isSane(offered) {
            context.requestID = offered
            context.logger[metadataKey: "request_id"] = .string(offered)
        } else {
            // Already on the logger as `hb.request.id`, which `LineLogHandler` writes as `request_id`:
            // setting it again copied the logger on every request.
            context.requestID = context.id
        }
        var response = try await next(request, context)
        response.headers[.requestID] = context.requestID
        return response
    }

    /// Whether a client's id may be used as is: 1 to 128 letters, digits and `-_.:/+=`. Anything else
    /// (a space, a quote, a control character) could forge fields on a log line, so it gets a new id.
    static func isSane(_ id: String) -> Bool {
        let utf8 = id.utf8
        guard !utf8.isEmpty, utf8.count <= 128 else { return false }
        return utf8.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                 UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "."), UInt8(ascii: ":"), UInt8(ascii: "/"), UInt8(ascii: "+"), UInt8(ascii: "="):
                true
            default:
                false
            }
        }
    }
}

extension HTTPField.Name {
    /// `X-Request-ID`.
    static let requestID = HTTPField.Name("X-Request-ID")!
}
