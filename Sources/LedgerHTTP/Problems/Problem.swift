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

    private enum CodingKeys: String, CodingKey {
        case type, title, statusCode = "status", detail, code
    }

    /// Creates a problem.
    public init(status: HTTPResponse.Status, code: String, title: String, detail: String) {
        self.type = "https://subledger.dev/problems/\(code)"
        self.title = title
        self.statusCode = status.code
        self.detail = detail
        self.code = code
    }

    /// The database could not be reached: clients (and Apple) should retry.
    public static func storageUnavailable(_ detail: String) -> Problem {
        Problem(status: .serviceUnavailable, code: "storage_unavailable", title: "Storage unavailable", detail: detail)
    }
}

extension Problem: HTTPResponseError {
    public var status: HTTPResponse.Status { HTTPResponse.Status(code: statusCode) }

    public func response(from request: Request, context: some RequestContext) throws -> Response {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        var headers: HTTPFields = [.contentType: "application/problem+json"]
        if code == "unauthorized" {
            // RFC 9110: a 401 names the scheme the client should use.
            headers[.wwwAuthenticate] = "Bearer"
        }
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: try encoder.encode(self))))
    }
}
