import EventStore
import Foundation

/// An event as projectors see it: its type, decoded body and position, whether read back from the
/// store (replay, as-of) or just appended (inline projection).
public struct ProjectableEvent: Sendable {
    /// The decoded body, by event type.
    public enum Body: Sendable {
        case fact(AppleFact)
        case link(UserLink)
        case grant(ManualGrant)
        case revoke(ManualGrant)
        /// A type the ledger does not fold (kept in the log, ignored here).
        case other
    }

    public var eventID: String
    /// The stream the event was appended to: a chain's document notes the streams besides its own
    /// that hold facts about it.
    public var streamID: String
    public var position: Int64
    /// When the store recorded the event, in Unix milliseconds: the stored time whether the event is
    /// read back or was just appended, so a replay folds what the inline projection folded.
    public var recordedAt: Int64
    public var body: Body

    /// Creates a projectable event.
    public init(eventID: String, streamID: String, position: Int64, recordedAt: Int64, body: Body) {
        self.eventID = eventID
        self.streamID = streamID
        self.position = position
        self.recordedAt = recordedAt
        self.body = body
    }

    /// Decodes a stored event; unknown types become `.other` (the schema version is not read: this
    /// build writes 1 on every event). A fact comes back without its raw input, which no projector
    /// reads (it stays in the log).
    public init(_ event: RecordedEvent, decoder: JSONDecoder = JSONDecoder()) throws {
        try self.init(FoldableEvent(event), decoder: decoder)
    }

    /// Decodes an event read for folding (see `init(_:decoder:)` for a recorded one).
    ///
    /// Throws `LedgerError` `unreadable_event`, naming the event, when its data is not what its type says.
    public init(_ event: FoldableEvent, decoder: JSONDecoder = JSONDecoder()) throws {
        let body: Body
        do {
            switch event.type {
            case LedgerEventType.notificationV2, LedgerEventType.notificationV1,
                 LedgerEventType.transaction, LedgerEventType.receiptValidated:
                body = .fact(try AppleFact.decode(from: event.data, decoder: decoder, includingRaw: false))
            case LedgerEventType.userLinked, LedgerEventType.userUnlinked:
                body = .link(try decoder.decode(UserLink.self, fromUntrusted: event.data))
            case LedgerEventType.entitlementGranted:
                body = .grant(try decoder.decode(ManualGrant.self, fromUntrusted: event.data))
            case LedgerEventType.entitlementRevoked:
                body = .revoke(try decoder.decode(ManualGrant.self, fromUntrusted: event.data))
            default:
                body = .other
            }
        } catch {
            let reason = (error as? DecodingError)?.summary ?? "\(error)"
            throw LedgerError(
                .unreadableEvent,
                "the event at position \(event.position) on stream \(event.streamID) (\(event.type)) cannot be read by this build: \(reason)"
            )
        }
        self.init(
            eventID: event.eventID.lowercaseString,
            streamID: event.streamID,
            position: event.position,
            recordedAt: Timestamp.milliseconds(event.recordedAt),
            body: body
        )
    }
}
