import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1

/// A plain request (GET unless told) over loopback with the shared client, with `Authorization: Bearer`
/// when given a secret, and a JSON body when given one.
func httpRequest(
    _ url: String, bearer: String? = nil, method: HTTPMethod = .GET, json body: Data? = nil
) async throws -> (status: Int, body: String, contentType: String?) {
    var request = HTTPClientRequest(url: url)
    request.method = method
    if let bearer { request.headers.add(name: "Authorization", value: "Bearer \(bearer)") }
    if let body {
        request.headers.add(name: "Content-Type", value: "application/json")
        request.body = .bytes(ByteBuffer(bytes: body))
    }
    let response = try await HTTPClient.shared.execute(request, timeout: .seconds(30))
    let body = try await response.body.collect(upTo: 1 << 20)
    return (Int(response.status.code), String(buffer: body), response.headers.first(name: "content-type"))
}
