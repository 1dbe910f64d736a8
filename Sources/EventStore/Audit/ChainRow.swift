import Foundation

/// An event read for the audit, with its stream's stored head (nil when the stream has no head row).
struct ChainRow: Sendable {
    var event: RecordedEvent
    var head: StreamHead?
}
