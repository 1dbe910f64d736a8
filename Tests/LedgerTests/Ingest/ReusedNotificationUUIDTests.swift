import AppStore
import AppStoreTesting
import EventStoreTesting
import Foundation
@testable import Ledger
import Testing

/// A V2 notification is deduplicated by its `notificationUUID`, as Apple asks. One that reuses a
/// recorded id with other text is answered `duplicate` and not recorded, but leaves a log line; an
/// identical retry leaves none.
struct ReusedNotificationUUIDTests {
    typealias H = LedgerHarness

    @Test func aNotificationReusingARecordedIdWithOtherTextIsLoggedNotRecorded() async throws {
        let log = CapturedLog()
        try await H.run(logger: log.logger) { h in
            let id = "aaaaaaaa-0000-4000-8000-000000000001"
            let bought = try TestPKI.notificationBody(signedPayload: h.pki.signNotification(
                type: .subscribed, subtype: .initialBuy, bundleId: H.bundleId,
                transaction: H.transaction("1000", purchased: 0, expires: 30), notificationUUID: id, signedDate: Day.apple(0)
            ))
            let first = try await h.ledger.ingestNotificationV2(body: bought, context: .init(source: "test"))
            let retry = try await h.ledger.ingestNotificationV2(body: bought, context: .init(source: "test"))
            #expect(retry.isDuplicate && retry.eventID == first.eventID)
            // Nor does a resend with other spacing around the same signed payload.
            let payload = try #require((try JSONSerialization.jsonObject(with: bought) as? [String: Any])?["signedPayload"] as? String)
            let spaced = Data("{ \"signedPayload\" : \"\(payload)\" }\n".utf8)
            try #require(spaced != bought)
            #expect(try await h.ledger.ingestNotificationV2(body: spaced, context: .init(source: "test")).isDuplicate)
            #expect(!log.lines.contains { $0.contains("recorded before with other text") }, "\(log.lines)")

            let refund = try TestPKI.notificationBody(signedPayload: h.pki.signNotification(
                type: .refund, bundleId: H.bundleId,
                transaction: H.transaction("1000", purchased: 0, expires: 30, signed: 5, revoked: 5), notificationUUID: id, signedDate: Day.apple(5)
            ))
            let before = try await h.store.eventCount()
            let reused = try await h.ledger.ingestNotificationV2(body: refund, context: .init(source: "test"))
            #expect(reused.isDuplicate && reused.eventID == first.eventID)
            #expect(try await h.store.eventCount() == before)
            let lines = log.lines.filter { $0.contains("recorded before with other text") }
            #expect(lines.count == 1, "\(log.lines)")
            #expect(lines.first?.hasPrefix("notice") == true, "\(lines)")
            #expect(lines.first?.contains("notification_uuid=\(id)") == true, "\(lines)")
            #expect(lines.first?.contains("notification_type=REFUND") == true && lines.first?.contains("recorded_type=SUBSCRIBED") == true, "\(lines)")
            #expect(lines.first?.contains("event_id=\(first.eventID)") == true, "\(lines)")
        }
    }
}
