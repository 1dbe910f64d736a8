import AsyncHTTPClient
import Foundation
import NIOCore

/// A plain GET over loopback with the shared client, with `Authorization: Bearer` when given a secret.
func httpGet(_ url: String, bearer: String? = nil) async throws -> (status: Int, body: String, contentType: String?) {
    var request = HTTPClientRequest(url: url)
    request.method = .GET
    if let bearer { request.headers.add(name: "Authorization", value: "Bearer \(bearer)") }
    let response = try await HTTPClient.shared.execute(request, timeout: .seconds(30))
    let body = try await response.body.collect(upTo: 1 << 20)
    return (Int(response.status.code), String(buffer: body), response.headers.first(name: "content-type"))
}
