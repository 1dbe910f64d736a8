/// One caller's read of a document and the documents it names, as a `ReadBatcher` key.
struct RelatedDocumentRead: Hashable, Sendable {
    let model: String
    let key: String
    let relatedModel: String
    let path: [String]
}
