import AppStore
import Foundation

/// A stored event this build cannot decode (data written by hand, or by a build with another
/// format): the store's content, not the caller's input, so it names the event to look at.
public struct UnreadableEvent: Error, Sendable, Hashable, CustomStringConvertible {
    public var position: Int64
    public var streamID: String
    public var type: String
    /// What is wrong, in the decoder's terms (the field and the fault).
    public var reason: String

    public init(position: Int64, streamID: String, type: String, reason: String) {
        self.position = position
        self.streamID = streamID
        self.type = type
        self.reason = reason
    }

    public var description: String {
        "the event at position \(position) on stream \(streamID) (\(type)) cannot be read by this build: \(reason)"
    }
}
