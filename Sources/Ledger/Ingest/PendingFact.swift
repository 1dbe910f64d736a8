import AppStore
import EventStore
import Foundation

/// A fact on its way into the store, with everything its transaction needs: what `record` batches.
struct PendingFact: Sendable {
    let fact: AppleFact
    let type: String
    let stream: String
    let dedupeKey: String
    let receivedAt: Date
    let context: IngestContext
    let facts: VerificationFacts?
    /// The links the fact implies (chain → user), recorded with it when it is new.
    let claims: [LinkClaim]
    /// The event to append: the fact as data, where it came from as metadata. Written when the fact
    /// is made, by its own request, so a batch does not write a whole batch's JSON on its one thread.
    let event: NewEvent

    init(
        fact: AppleFact, type: String, stream: String, dedupeKey: String, receivedAt: Date, context: IngestContext,
        facts: VerificationFacts?, claims: [LinkClaim]
    ) {
        self.fact = fact
        self.type = type
        self.stream = stream
        self.dedupeKey = dedupeKey
        self.receivedAt = receivedAt
        self.context = context
        self.facts = facts
        self.claims = claims
        self.event = .ledger(type: type, data: fact.encodedJSON(), receivedAt: receivedAt, context: context, facts: facts, dedupeKey: dedupeKey)
    }
}
