import Crypto
import Foundation

/// Computes the tamper-evident hash chain: `hash = SHA-256(previous hash ‖ canonical bytes of the event)`.
///
/// The canonical bytes are a length-prefixed encoding of every stored field (data and metadata as the
/// exact bytes stored), so no two different events share them. The first event of a stream chains
/// from 32 zero bytes.
public enum EventHasher {
    /// The hash a stream's first event chains from.
    public static let genesis = Data(repeating: 0, count: 32)

    /// The fields that are hashed, as stored.
    public struct Fields: Sendable {
        public var eventID: UUID
        public var streamID: String
        public var streamVersion: Int64
        public var type: String
        public var schemaVersion: Int
        public var recordedAtMicros: Int64
        public var dedupeKey: String?
        public var data: Data
        public var metadata: Data

        /// Creates the hashed fields of one event.
        public init(
            eventID: UUID, streamID: String, streamVersion: Int64, type: String, schemaVersion: Int,
            recordedAtMicros: Int64, dedupeKey: String?, data: Data, metadata: Data
        ) {
            self.eventID = eventID
            self.streamID = streamID
            self.streamVersion = streamVersion
            self.type = type
            self.schemaVersion = schemaVersion
            self.recordedAtMicros = recordedAtMicros
            self.dedupeKey = dedupeKey
            self.data = data
            self.metadata = metadata
        }
    }

    /// The hash of an event given the previous event's hash in its stream.
    public static func hash(previous: Data, _ fields: Fields) -> Data {
        var hasher = SHA256()
        hasher.update(data: previous)
        hasher.update(data: canonicalBytes(fields))
        return Data(hasher.finalize())
    }

    /// Recomputes the hash of a stored event from its stored bytes.
    public static func hash(previous: Data, _ event: RecordedEvent) -> Data {
        hash(previous: previous, fields(of: event))
    }

    /// The hashed fields of a stored event.
    public static func fields(of event: RecordedEvent) -> Fields {
        Fields(
            eventID: event.eventID,
            streamID: event.streamID,
            streamVersion: event.streamVersion,
            type: event.type,
            schemaVersion: event.schemaVersion,
            recordedAtMicros: Timestamp.micros(event.recordedAt),
            dedupeKey: event.dedupeKey,
            data: event.data,
            metadata: event.metadata
        )
    }

    static func canonicalBytes(_ fields: Fields) -> Data {
        var bytes = Data("subledger-event-v1".utf8)
        func append(_ field: Data) {
            var length = UInt32(field.count).bigEndian
            withUnsafeBytes(of: &length) { bytes.append(contentsOf: $0) }
            bytes.append(field)
        }
        func append(_ text: String) { append(Data(text.utf8)) }
        append(fields.eventID.lowercaseString)
        append(fields.streamID)
        append(String(fields.streamVersion))
        append(fields.type)
        append(String(fields.schemaVersion))
        append(String(fields.recordedAtMicros))
        // A missing key and an empty key must hash differently.
        append(fields.dedupeKey.map { "1" + $0 } ?? "0")
        append(fields.data)
        append(fields.metadata)
        return bytes
    }
}
