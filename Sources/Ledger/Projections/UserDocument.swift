/// A user's fold state and the highest event position folded into it.
public struct UserDocument: Codable, Hashable, Sendable {
    public var state: UserState
    public var position: Int64
}
