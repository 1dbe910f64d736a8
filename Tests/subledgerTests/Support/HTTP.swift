import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1

/// A plain request (GET unless told) over loopback with the shared client, with `Authorization: Bearer`
/// when given a secret, and a JSON body when given one. A refused connection is tried again until
/// `timeout` (the shared client's pool does so), so a server known to be gone takes a short one.
func httpRequest(
    _ url: String, bearer: String? = nil, method: HTTPMethod = .GET, json body: Data? = nil, timeout: Duration = .seconds(30)
) async throws -> (status: Int, body: String, contentType: String?) {
    var request = HTTPClientRequest(url: url)
    request.method = method
    if let bearer { request.headers.add(name: "Authorization", value: "Bearer \(bearer)") }
    if let body {
        request.headers.add(name: "Content-Type", value: "application/json")
        request.body = .bytes(ByteBuffer(bytes: body))
    }
    let (seconds, attoseconds) = timeout.components
    let response = try await HTTPClient.shared.execute(request, timeout: .nanoseconds(seconds * 1_000_000_000 + attoseconds / 1_000_000_000))
    let body = try await response.body.collect(upTo: 1 << 20)
    return (Int(response.status.code), String(buffer: body), response.headers.first(name: "content-type"))
}
