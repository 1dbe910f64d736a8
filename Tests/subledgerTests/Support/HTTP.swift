import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1

/// A plain request (GET unless told) over loopback with the shared client, with `Authorization: Bearer`
/// when given a secret.
func httpGet(_ url: String, bearer: String? = nil, method: HTTPMethod = .GET) async throws -> (status: Int, body: String, contentType: String?) {
    var request = HTTPClientRequest(url: url)
    request.method = method
    if let bearer { request.headers.add(name: "Authorization", value: "Bearer \(bearer)") }
    let response = try await HTTPClient.shared.execute(request, timeout: .seconds(30))
    let body = try await response.body.collect(upTo: 1 << 20)
    return (Int(response.status.code), String(buffer: body), response.headers.first(name: "content-type"))
}
