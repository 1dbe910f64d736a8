/// The address of one read-model document: its model and its key.
public struct DocumentKey: Sendable, Hashable {
    public var model: String
    public var key: String

    /// Creates an address.
    public init(model: String, key: String) {
        self.model = model
        self.key = key
    }
}
