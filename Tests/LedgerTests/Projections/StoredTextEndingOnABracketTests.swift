import EventStore
import Foundation
import Testing

@testable import Ledger

/// Foundation's `JSONDecoder` traps on a text ending on the `[` of its 513th level. Our writers never
/// store such a text, but a restored backup or a hand edit can: reading one is an error naming the
/// event or document, never a crash of the server or of a replay.
@Suite("Stored text ending on a bracket is an error, not a crash")
struct StoredTextEndingOnABracketTests {
    static let brackets = Data(repeating: UInt8(ascii: "["), count: 513)

    @Test(arguments: [
        LedgerEventType.notificationV2, LedgerEventType.notificationV1, LedgerEventType.transaction,
        LedgerEventType.receiptValidated, LedgerEventType.userLinked, LedgerEventType.userUnlinked,
        LedgerEventType.entitlementGranted, LedgerEventType.entitlementRevoked,
    ])
    func aStoredEventIsUnreadable(type: String) throws {
        let event = FoldableEvent(
            cursor: EventCursor(transaction: 1, position: 7), eventID: UUID(), streamID: "user-u1", type: type,
            schemaVersion: 1, data: Self.brackets, recordedAt: Date(timeIntervalSince1970: 0)
        )
        #expect {
            _ = try ProjectableEvent(event)
        } throws: { error in
            let ledger = error as? LedgerError
            return ledger?.code == .unreadableEvent && ledger?.message.contains("position 7 on stream user-u1 (\(type))") == true
        }
    }

    @Test func storedDocumentsAreUnreadable() {
        #expect(throws: DecodingError.self) { _ = try UserDocument.decode(from: Self.brackets) }
        #expect(throws: DecodingError.self) { _ = try ChainDocument.decode(from: Self.brackets) }
        #expect(throws: DecodingError.self) { _ = try OwnerDocument.decode(from: Self.brackets) }
    }
}
