import HTTPTypes
import Hummingbird

/// One method of one path the router serves.
struct ServedRoute: Sendable {
    let path: RouterPath
    let method: HTTPRequest.Method

    /// Whether a request path's segments are this route's (a capture takes any one segment).
    func matches(_ segments: [Substring]) -> Bool {
        path.components.count == segments.count && zip(path.components, segments).allSatisfy { $0 ~= $1 }
    }
}
