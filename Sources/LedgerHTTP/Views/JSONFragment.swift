import AppStore
import Foundation

/// Already-encoded JSON embedded as is in an encoded body.
struct JSONFragment: Encodable, Sendable {
    let value: JSONValue

    init(_ data: Data) {
        value = (try? JSONDecoder().decode(JSONValue.self, fromUntrusted: data)) ?? .null
    }

    func encode(to encoder: any Encoder) throws { try value.encode(to: encoder) }
}
