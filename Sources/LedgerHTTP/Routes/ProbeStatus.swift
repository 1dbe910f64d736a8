import Hummingbird

/// The body of a probe answer.
struct ProbeStatus: ResponseEncodable, Sendable {
    var status: String
    var database: String?
}
