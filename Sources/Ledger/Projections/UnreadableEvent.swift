import AppStore
import Foundation

/// A stored event this build cannot decode (data written by hand, or by a build with another
/// format): the store's content, not the caller's input, so it names the event to look at.
public struct UnreadableEvent: Error, Sendable, Hashable, CustomStringConvertible {
    /// The stable code logs and scripts can match on.
    public static let code = "unreadable_event"

    /// The event's position in the log.
    public var position: Int64
    /// The stream the event is stored on.
    public var streamID: String
    /// The event's type, which says how its data should have decoded.
    public var type: String
    /// What is wrong, in the decoder's terms (the field and the fault).
    public var reason: String

    /// Names the event at `position` on `streamID` and what is wrong with it.
    public init(position: Int64, streamID: String, type: String, reason: String) {
        self.position = position
        self.streamID = streamID
        self.type = type
        self.reason = reason
    }

    /// The code, then the event and the reason, as the store's and the ledger's errors read.
    public var description: String {
        "\(Self.code): the event at position \(position) on stream \(streamID) (\(type)) cannot be read by this build: \(reason)"
    }
}
