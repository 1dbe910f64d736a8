import EventStore
import Foundation

/// The read models a projector reads and writes, typed: the store's transaction when projecting
/// inline, dictionaries in memory when replaying. One projector serves both, so a rebuilt read model
/// comes out identical to the live one.
public protocol LedgerDocuments: Sendable {
    /// Locks, reads (or starts empty), changes and writes back a chain's document.
    func updateChain(_ originalTransactionId: String, _ change: (inout ChainDocument) -> Void) async throws
    /// Locks, reads (or starts empty), changes and writes back a user's document.
    func updateUser(_ userId: String, _ change: (inout UserDocument) -> Void) async throws
    /// Records who owns a chain now (after `lock` on the owner document).
    func putOwner(_ document: OwnerDocument, chain originalTransactionId: String) async throws
    /// Takes the exclusive lock on a document before reading it for a change.
    func lock(model: String, key: String) async throws
}
