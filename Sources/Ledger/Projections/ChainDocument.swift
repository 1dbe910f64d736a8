/// A chain's fold state and the highest event position folded into it.
public struct ChainDocument: Codable, Hashable, Sendable {
    public var state: ChainState
    public var position: Int64
}
