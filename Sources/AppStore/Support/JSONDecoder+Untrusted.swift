import Foundation

extension JSONDecoder {
    /// Decodes bytes from outside the process (a request body, a JWS segment, an answer from Apple).
    ///
    /// Foundation's decoder (swift-foundation, as shipped with Swift 6.3 on Linux) traps, killing the
    /// process, when a text ends on the `[` that opens its 513th level: reporting the nesting error
    /// reads past the end. A text whose last byte opens an array or an object is never JSON, so it is
    /// refused here as the decoder refuses other broken text, before the decoder sees it.
    ///
    /// Stored events and documents come through here too: our writers never end a text on a bracket,
    /// but a restored backup or a hand edit is as much outside the process as a request body.
    /// `UntrustedDecodeRuleTests` fails on a plain `decode(_:from:)` anywhere else in the sources.
    public func decode<T: Decodable>(_ type: T.Type, fromUntrusted data: Data) throws -> T {
        if let last = data.last, last == UInt8(ascii: "[") || last == UInt8(ascii: "{") {
            throw DecodingError.dataCorrupted(.init(codingPath: [], debugDescription: "The given data was not valid JSON."))
        }
        return try decode(type, from: data)
    }
}
