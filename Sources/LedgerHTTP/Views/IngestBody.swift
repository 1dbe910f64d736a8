import Hummingbird

/// The answer to an ingestion.
struct IngestBody: ResponseEncodable, Sendable {
    var result: String
    var event_id: String
    var position: Int64
}
