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
            #expect(!clean.stdout.contains("note:"), "\(clean.stdout)")

            // With a configuration that does not trust the test root (another directory's, say)
            // every fact reads as untrusted_chain, as a changed chain would; the audit says which.
            try "apple:\n  apps:\n    - { bundle_id: com.example.app, environments: [Sandbox] }\n"
                .write(to: directory.appendingPathComponent("elsewhere.yaml"), atomically: true, encoding: .utf8)
            let untrusting = try await SubledgerProcess.run(["audit", "verify", "--config", "elsewhere.yaml"], in: directory)
            #expect(untrusting.status == 1, "\(untrusting.stdout)")
            #expect(untrusting.stdout.contains(
                "note: 2 of them are untrusted_chain: the chain in the stored text does not lead to a root this audit trusts (Apple Root CA - G3, and 0 file(s) in apple.trusted_roots); if serve trusts other roots, run the audit with its configuration (--config FILE)"
            ), "\(untrusting.stdout)")

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
            try await Self.edit(path, [
                ("DROP TRIGGER events_immutable_update", []),
                ("UPDATE events SET data = ?, hash = ? WHERE position = ?",
                 [.text(String(decoding: forged.data, as: UTF8.self)), .blob(.init(data: forged.hash)), .integer(Int(original.position))]),
                ("UPDATE streams SET head_hash = ? WHERE stream_id = 'subscription-1000'", [.blob(.init(data: head))]),
            ])

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

    /// A checkpoint written by one audit and checked by the next: events appended since pass; a
    /// stream removed whole with its head, which the chains alone cannot show, is found.
    @Test func aCheckpointKeptElsewhereShowsAStreamRemovedWithItsHead() async throws {
        try await withTemporaryDirectory { directory in
            #expect(try await SubledgerProcess.run(["migrate"], in: directory).status == 0)
            let path = directory.appendingPathComponent("subledger.sqlite").path
            let store = try await SQLiteEventStore.open(path: path)
            for stream in ["user-a", "user-b"] {
                _ = try await store.append(to: stream, [NewEvent(type: "t", data: Data(#"{"n":1}"#.utf8))], expectedVersion: .any)
            }
            try await store.shutdown()
            let written = try await SubledgerProcess.run(["audit", "verify", "--write-checkpoint", "heads.json"], in: directory)
            #expect(written.status == 0, "\(written.stderr)")
            #expect(written.stdout.contains("wrote a checkpoint of 2 streams to heads.json"), "\(written.stdout)")
            let file = try String(contentsOf: directory.appendingPathComponent("heads.json"), encoding: .utf8)
            #expect(file.contains(#""user-a""#) && file.contains(#""format" : "subledger-audit-checkpoint-1""#), "\(file)")

            let grown = try await SQLiteEventStore.open(path: path)
            _ = try await grown.append(to: "user-a", [NewEvent(type: "t", data: Data(#"{"n":2}"#.utf8))], expectedVersion: .any)
            try await grown.shutdown()
            let later = try await SubledgerProcess.run(["audit", "verify", "--checkpoint", "heads.json"], in: directory)
            #expect(later.status == 0, "\(later.stdout)\(later.stderr)")
            #expect(later.stdout.contains("all hash chains are intact and match the checkpoint"), "\(later.stdout)")

            try await Self.edit(path, [
                ("DROP TRIGGER events_immutable_delete", []),
                ("DELETE FROM events WHERE stream_id = 'user-b'", []),
                ("DELETE FROM streams WHERE stream_id = 'user-b'", []),
            ])
            let chainsOnly = try await SubledgerProcess.run(["audit", "verify"], in: directory)
            #expect(chainsOnly.status == 0, "the chains alone cannot show it: \(chainsOnly.stdout)")
            let checked = try await SubledgerProcess.run(["audit", "verify", "--checkpoint", "heads.json"], in: directory)
            #expect(checked.status == 1)
            #expect(checked.stdout.contains("broken link: stream user-b: checkpoint_missing (the checkpoint recorded version 1; the stream is gone)"), "\(checked.stdout)")
            #expect(checked.stderr.contains("Error: 1 stream(s) have a broken hash chain or differ from the checkpoint"), "\(checked.stderr)")
            // Findings: no checkpoint is written from them.
            let refused = try await SubledgerProcess.run(["audit", "verify", "--checkpoint", "heads.json", "--write-checkpoint", "next.json"], in: directory)
            #expect(refused.stdout.contains("no checkpoint written: the audit has findings"), "\(refused.stdout)")
            #expect(!FileManager.default.fileExists(atPath: directory.appendingPathComponent("next.json").path))

            try Data("{}".utf8).write(to: directory.appendingPathComponent("junk.json"))
            let junk = try await SubledgerProcess.run(["audit", "verify", "--checkpoint", "junk.json"], in: directory)
            #expect(junk.status == 64)
            #expect(junk.stderr.contains("Error: cannot use --checkpoint junk.json: it is not a checkpoint that audit verify --write-checkpoint writes"), "\(junk.stderr)")
        }
    }

    /// Runs `statements` on the SQLite file at `path` behind the store's back, as an operator with
    /// write access could; the connection is closed whatever happens (an open one ends a debug build).
    static func edit(_ path: String, _ statements: [(String, [SQLiteData])]) async throws {
        let raw = try await SQLiteConnection.open(storage: .file(path: path))
        do {
            for (sql, binds) in statements { _ = try await raw.query(sql, binds) }
        } catch {
            try? await raw.close()
            throw error
        }
        try await raw.close()
    }

    /// The expiry the notification's fact recorded, read from its stored data.
    static func expiresDate(in data: Data) -> Int64? {
        guard let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
              let transactions = object["transactions"] as? [[String: Any]] else { return nil }
        return (transactions.first?["expiresDate"] as? NSNumber)?.int64Value
    }
}
