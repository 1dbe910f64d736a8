import AppStore
import AppStoreTesting
import EventStore
import Foundation
import SQLiteNIO
import Testing

/// `audit verify` checks every signed fact against the text Apple signed, beside the hash chains:
/// an event changed and hashed again keeps its chain intact, but not its signature.
@Suite("subledger audit verify: signed facts")
struct AuditSignedFactsTests {
    @Test func aSignedFactEditedAndHashedAgainIsFoundThoughItsChainHolds() async throws {
        try await withTemporaryDirectory { directory in
            let pki = try TestPKI()
            let (server, base) = try await serveTrustingTestPKI(pki, in: directory)
            let now = AppStoreDate(millisecondsSince1970: Int64(Date().timeIntervalSince1970 * 1000))
            let notification = try pki.subscribedBody(transactionId: "1000", at: now)
            #expect(try await httpRequest(base + "/v1/apple/notifications/v2", method: .POST, json: notification).status == 200)
            let submission = try JSONSerialization.data(withJSONObject: [
                "user_id": "u1", "signed_transaction": pki.signTransaction(.testSubscription(transactionId: "2000", purchaseDate: now)),
            ])
            #expect(try await httpRequest(base + "/v1/apple/transactions", bearer: TestAPIKey.secret, method: .POST, json: submission).status == 200)
            server.signal(SIGTERM)
            #expect(try await server.waitForExit() == 0)

            let clean = try await SubledgerProcess.run(["audit", "verify"], in: directory)
            #expect(clean.status == 0, "\(clean.stdout)\(clean.stderr)")
            #expect(clean.stdout.contains("all hash chains are intact"), "\(clean.stdout)")
            #expect(clean.stdout.contains("2 signed facts match Apple's signed text"), "\(clean.stdout)")

            // The forgery: the notification's decoded expiry moved ten years on, its hash and its
            // stream's head computed again, as anyone who can write the file can.
            let path = directory.appendingPathComponent("subledger.sqlite").path
            let store = try await SQLiteEventStore.open(path: path)
            let events = try await store.readStream("subscription-1000")
            try await store.shutdown()
            let original = try #require(events.first { $0.type == "apple.notification.v2" })
            let expires = try #require(Self.expiresDate(in: original.data))
            var forged = original
            forged.data = Data(String(decoding: original.data, as: UTF8.self)
                .replacingOccurrences(of: #""expiresDate":\#(expires)"#, with: #""expiresDate":\#(expires + 315_360_000_000)"#).utf8)
            #expect(forged.data != original.data)
            // The stream's last event, so its hash is the stream's head.
            try #require(events.last?.eventID == original.eventID)
            let previous = events.last { $0.streamVersion == original.streamVersion - 1 }?.hash ?? EventHasher.genesis
            forged.hash = EventHasher.hash(previous: previous, forged)
            let head = forged.hash
            let raw = try await SQLiteConnection.open(storage: .file(path: path))
            do {
                _ = try await raw.query("DROP TRIGGER events_immutable_update")
                _ = try await raw.query(
                    "UPDATE events SET data = ?, hash = ? WHERE position = ?",
                    [SQLiteData.text(String(decoding: forged.data, as: UTF8.self)), .blob(.init(data: forged.hash)), .integer(Int(original.position))]
                )
                _ = try await raw.query("UPDATE streams SET head_hash = ? WHERE stream_id = 'subscription-1000'", [.blob(.init(data: head))])
            } catch {
                try? await raw.close()
                throw error
            }
            try await raw.close()

            let audited = try await SubledgerProcess.run(["audit", "verify"], in: directory)
            #expect(audited.status == 1, "\(audited.stdout)")
            #expect(audited.stdout.contains("all hash chains are intact"), "\(audited.stdout)")
            #expect(audited.stdout.contains("1 signed facts match Apple's signed text"), "\(audited.stdout)")
            #expect(audited.stdout.contains(
                "signed fact differs: position \(original.position) (apple.notification.v2 in subscription-1000): "
                    + "transactions[0].expiresDate is \(expires + 315_360_000_000), the signed text gives \(expires)"
            ), "\(audited.stdout)")
            #expect(audited.stderr.contains("Error: 1 signed fact(s) do not match Apple's signed text"), "\(audited.stderr)")
        }
    }

    /// The expiry the notification's fact recorded, read from its stored data.
    static func expiresDate(in data: Data) -> Int64? {
        guard let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
              let transactions = object["transactions"] as? [[String: Any]] else { return nil }
        return (transactions.first?["expiresDate"] as? NSNumber)?.int64Value
    }
}
