import AppStore
import EventStore
import Foundation
import Hummingbird

/// An event as auditors read it: every stored field, the body and metadata as JSON.
struct EventBody: Encodable, Sendable {
    var cursor: String
    var position: Int64
    var event_id: String
    var stream_id: String
    var stream_version: Int64
    var type: String
    var schema_version: Int
    var recorded_at: String
    @Nullable var dedupe_key: String?
    var hash: String
    var data: JSONFragment
    var metadata: JSONFragment

    init(_ event: RecordedEvent) {
        cursor = event.cursor.description
        position = event.position
        event_id = event.eventID.lowercaseString
        stream_id = event.streamID
        stream_version = event.streamVersion
        type = event.type
        schema_version = event.schemaVersion
        recorded_at = APIDate.string(event.recordedAt)
        dedupe_key = event.dedupeKey
        hash = Hex.string(event.hash)
        data = JSONFragment(event.data)
        metadata = JSONFragment(event.metadata)
    }
}

/// Any JSON value, to carry event bodies through `Codable` without knowing their types.
indirect enum JSONValue: Codable, Sendable {
    case object([String: JSONValue])
    case array([JSONValue])
    case string(String)
    case number(Double)
    case integer(Int64)
    case bool(Bool)
    case null

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() { self = .null }
        else if let value = try? container.decode(Bool.self) { self = .bool(value) }
        else if let value = try? container.decode(Int64.self) { self = .integer(value) }
        else if let value = try? container.decode(Double.self) { self = .number(value) }
        else if let value = try? container.decode(String.self) { self = .string(value) }
        else if let value = try? container.decode([JSONValue].self) { self = .array(value) }
        else { self = .object(try container.decode([String: JSONValue].self)) }
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .object(let value): try container.encode(value)
        case .array(let value): try container.encode(value)
        case .string(let value): try container.encode(value)
        case .number(let value): try container.encode(value)
        case .integer(let value): try container.encode(value)
        case .bool(let value): try container.encode(value)
        case .null: try container.encodeNil()
        }
    }
}
