import Ledger

/// The observation a chain keeps for a transaction after folding `observations` (event ids "a",
/// "b", ... in the given order) in three orders: as given, reversed, and with the first two swapped.
/// One element when the fold does not depend on arrival order; nil among them for an order that
/// lost the transaction.
func keptObservations(_ observations: [TransactionObservation]) -> Set<TransactionObservation?> {
    guard let first = observations.first else { return [] }
    let tagged = Array(zip(observations, ["a", "b", "c", "d", "e"]))
    var results: Set<TransactionObservation?> = []
    for order in [tagged, tagged.reversed(), Array(tagged.prefix(2).reversed()) + tagged.dropFirst(2)] {
        var state = ChainState(originalTransactionId: first.originalTransactionId)
        for (observation, id) in order { state.apply(observation, eventID: id) }
        results.insert(state.transactions[first.transactionId]?.value)
    }
    return results
}
