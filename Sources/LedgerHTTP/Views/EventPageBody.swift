import Hummingbird

/// A page of events and the cursor to pass as `after` for the next page.
struct EventPageBody: ResponseEncodable, Sendable {
    var events: [EventBody]
    var next_after: String
}
