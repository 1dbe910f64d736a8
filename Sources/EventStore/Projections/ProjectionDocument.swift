import Foundation

/// One read-model document: a `(model, key)` and its JSON.
public struct ProjectionDocument: Sendable, Hashable {
    public var model: String
    public var key: String
    /// The document's JSON bytes, as written.
    public var data: Data

    /// Creates a document.
    public init(model: String, key: String, data: Data) {
        self.model = model
        self.key = key
        self.data = data
    }
}
