import Foundation

/// A read-model document and the documents it names, read together (see
/// `EventStore.document(model:key:relatedModel:keysAt:)`).
public struct DocumentWithRelated: Sendable, Hashable {
    /// The document's JSON bytes.
    public var data: Data
    /// The named documents that exist, sorted by key.
    public var related: [ProjectionDocument]

    /// Creates the pair.
    public init(data: Data, related: [ProjectionDocument]) {
        self.data = data
        self.related = related
    }
}
