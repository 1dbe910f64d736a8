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
        feedCanonicalBytes(of: fields, to: &hasher)
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

    /// Feeds the canonical bytes to `hasher` one field at a time, rather than first copying them
    /// into one buffer: an event's data is kilobytes, and this runs inside the append's transaction.
    private static func feedCanonicalBytes(of fields: Fields, to hasher: inout SHA256) {
        func feed(_ bytes: UnsafeRawBufferPointer) {
            var length = UInt32(bytes.count).bigEndian
            withUnsafeBytes(of: &length) { hasher.update(bufferPointer: $0) }
            hasher.update(bufferPointer: bytes)
        }
        func feed(_ data: Data) { data.withUnsafeBytes { feed($0) } }
        func feed(_ text: String) {
            var text = text
            text.withUTF8 { feed(UnsafeRawBufferPointer($0)) }
        }
        hasher.update(data: domain)
        feed(fields.eventID.lowercaseString)
        feed(fields.streamID)
        feed(String(fields.streamVersion))
        feed(fields.type)
        feed(String(fields.schemaVersion))
        feed(String(fields.recordedAtMicros))
        // A missing key and an empty key must hash differently.
        feed(fields.dedupeKey.map { "1" + $0 } ?? "0")
        feed(fields.data)
        feed(fields.metadata)
    }

    /// The canonical encoding's leading tag (not length-prefixed).
    private static let domain = Data("subledger-event-v1".utf8)
}
