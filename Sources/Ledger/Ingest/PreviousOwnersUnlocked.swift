/// Ends a write's transaction when a claim would transfer a chain from users whose streams and
/// documents its first statement did not lock: the write rolls back and runs again with them in that
/// statement, so it takes every lock in the one sorted order all writes take, rather than lock them
/// after the rest, where two transfers between the same users each held what the other needed next
/// and PostgreSQL broke the cycle only after `deadlock_timeout`.
struct PreviousOwnersUnlocked: Error, Sendable {
    /// The previous owners found, to lock with the rest next time.
    let owners: Set<String>
}
