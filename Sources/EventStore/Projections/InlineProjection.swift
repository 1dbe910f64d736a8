/// Work that runs inside the store's transaction: inline projections and checkpointed projectors.
///
/// It receives the outcome of the append (empty for `commitProjection`) and a handle on the same
/// transaction, so read-model writes commit or roll back together with the events.
public typealias InlineProjection = @Sendable (AppendResult?, any ProjectionTransaction) async throws -> Void
