/// One caller's read of a document and the documents it names, as a `ReadBatcher` key.
struct RelatedDocumentRead: Hashable, Sendable {
    let model: String
    let key: String
    let relatedModel: String
    let path: [String]

    /// Hashes the key alone: reads of one batch differ in little else, and a batch hashes each read
    /// several times, so hashing the model, the path and the related model too cost about 0.8% of an
    /// entitlement read's CPU. Equality still compares every field.
    func hash(into hasher: inout Hasher) {
        hasher.combine(key)
    }
}
