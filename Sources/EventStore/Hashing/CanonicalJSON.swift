import Foundation

/// Rewrites JSON into one canonical byte form: object keys sorted, no insignificant white space.
///
/// Read models are `jsonb` in PostgreSQL, which does not keep the bytes it was given (it reorders keys
/// and drops spaces), so `replay --check` compares documents in this form.
public enum CanonicalJSON {
    /// Returns the canonical bytes of a JSON object, or throws `invalid_event` if `data` is not one.
    public static func canonicalize(_ data: Data, field: String = "data") throws(EventStoreError) -> Data {
        let object: Any
        do {
            object = try JSONSerialization.jsonObject(with: data, options: [])
        } catch {
            throw EventStoreError(.invalidEvent, "event \(field) is not valid JSON")
        }
        guard object is [String: Any] else {
            throw EventStoreError(.invalidEvent, "event \(field) must be a JSON object")
        }
        do {
            return try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])
        } catch {
            throw EventStoreError(.invalidEvent, "event \(field) cannot be written as canonical JSON")
        }
    }
}
