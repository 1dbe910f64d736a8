import Foundation
import Hummingbird

/// An RFC 9457 `application/problem+json` error body with a stable machine `code`.
///
/// Every error the API returns has this shape, so clients branch on `code`, never on `detail` text.
public struct Problem: Error, Sendable, Codable, Equatable {
    /// A URI naming the kind of problem; ours are `https://subledger.dev/problems/<code>`.
    public var type: String
    /// A short summary that does not change between occurrences.
    public var title: String
    /// The HTTP status code.
    public var statusCode: Int
    /// What happened this time, for people.
    public var detail: String
    /// The stable snake_case code clients branch on.
    public var code: String
    /// For a 405, the methods the path is served with (the `Allow` header; not in the body).
    public var allowedMethods: [HTTPRequest.Method] = []

    private enum CodingKeys: String, CodingKey {
        case type, title, statusCode = "status", detail, code
    }

    /// Creates a problem.
    public init(status: HTTPResponse.Status, code: String, title: String, detail: String) {
        self.type = "https://subledger.dev/problems/\(code)"
        self.title = title
        self.statusCode = status.code
        self.detail = Self.bounded(detail)
        self.code = code
    }

    /// The most of a detail a problem keeps, in Unicode scalars. A detail may quote the input it
    /// refuses (an unknown `bid`, a bad date), and anyone can post a webhook: uncut, a 1 MiB body came
    /// back whole in the answer, the log line and the rejection row. Scalars, not characters: one
    /// character can hold any number of combining marks.
    public static let detailLimit = 1_000

    /// `text` cut to `limit` Unicode scalars, saying how many were left out.
    public static func bounded(_ text: String, to limit: Int = detailLimit) -> String {
        guard text.utf8.count > limit else { return text }
        let scalars = text.unicodeScalars
        let total = scalars.count
        guard total > limit else { return text }
        let kept = String(String.UnicodeScalarView(scalars.prefix(limit)))
        return "\(kept)... (\(total - limit) more characters left out)"
    }

    /// The path is served, but not with this method.
    public static func methodNotAllowed(_ method: HTTPRequest.Method, allowed: [HTTPRequest.Method]) -> Problem {
        let names = allowed.map(\.rawValue)
        let choices = names.count < 2 ? names.joined() : names.dropLast().joined(separator: ", ") + " or " + names[names.count - 1]
        var problem = Problem(
            status: .methodNotAllowed, code: "method_not_allowed", title: "Method not allowed",
            detail: "\(method.rawValue) is not served here; use \(choices)"
        )
        problem.allowedMethods = allowed
        return problem
    }

    /// `maximum` NDJSON feed streams are open (`http.max_feed_streams`): a limit at work, not a failure.
    public static func tooManyStreams(maximum: Int) -> Problem {
        Problem(
            status: .serviceUnavailable, code: tooManyStreamsCode, title: "Too many feed streams",
            detail: "\(maximum) NDJSON feed streams are open, as many as http.max_feed_streams allows; try again once one ends, or read pages (Accept: application/json)"
        )
    }

    /// The code of ``tooManyStreams(maximum:)``.
    public static let tooManyStreamsCode = "too_many_streams"

    /// The database could not be reached: clients (and Apple) should retry.
    public static func storageUnavailable(_ detail: String) -> Problem {
        Problem(status: .serviceUnavailable, code: "storage_unavailable", title: "Storage unavailable", detail: detail)
    }
}

extension Problem: CustomStringConvertible {
    /// `code: detail`, as a log line's `error` shows it (not Swift's dump of every field).
    public var description: String {
        "\(code): \(detail)"
    }
}

extension Problem: HTTPResponseError {
    public var status: HTTPResponse.Status { HTTPResponse.Status(code: statusCode) }

    public func response(from request: Request, context: some RequestContext) throws -> Response {
        var headers: HTTPFields = [.contentType: Self.contentType]
        if code == "unauthorized" {
            // RFC 9110: a 401 names the scheme the client should use.
            headers[.wwwAuthenticate] = "Bearer"
        }
        if !allowedMethods.isEmpty {
            // RFC 9110: a 405 lists the methods the resource supports.
            headers[.allow] = allowedMethods.map(\.rawValue).joined(separator: ", ")
        }
        return Response(status: status, headers: headers, body: .init(byteBuffer: try encodedBody()))
    }

    /// RFC 9457's media type.
    static let contentType = "application/problem+json"

    /// The `application/problem+json` body, keys sorted.
    func encodedBody() throws -> ByteBuffer {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return ByteBuffer(bytes: try encoder.encode(self))
    }
}
