import AsyncHTTPClient
import Foundation
import NIOCore

/// A plain GET over loopback with the shared client.
func httpGet(_ url: String) async throws -> (status: Int, body: String, contentType: String?) {
    var request = HTTPClientRequest(url: url)
    request.method = .GET
    let response = try await HTTPClient.shared.execute(request, timeout: .seconds(30))
    let body = try await response.body.collect(upTo: 1 << 20)
    return (Int(response.status.code), String(buffer: body), response.headers.first(name: "content-type"))
}
