import AppStore
import AppStoreTesting
import Foundation
import Testing

/// `subledger_ingest_total` as an operator reads it from a running `serve`: each webhook and client
/// submission counted once under its endpoint and result.
@Suite("subledger serve: ingest outcomes in /metrics")
struct IngestMetricsTests {
    @Test func webhooksAndSubmissionsAreCountedAsRecordedDuplicateOrTheirErrorCode() async throws {
        try await withTemporaryDirectory { directory in
            let pki = try TestPKI()
            let (server, base) = try await serveTrustingTestPKI(pki, in: directory)
            let now = AppStoreDate(millisecondsSince1970: Int64(Date().timeIntervalSince1970 * 1000))

            let notification = try pki.subscribedBody(transactionId: "1000", at: now)
            let v2 = base + "/v1/apple/notifications/v2"
            #expect(try await httpRequest(v2, method: .POST, json: notification).body.contains(#""result":"recorded""#))
            #expect(try await httpRequest(v2, method: .POST, json: notification).body.contains(#""result":"duplicate""#))
            // Signed by a key no trusted root vouches for.
            let forged = try TestPKI.notificationBody(signedPayload: TestPKI().signNotification(
                type: .subscribed, bundleId: "com.example.app", signedDate: now
            ))
            #expect(try await httpRequest(v2, method: .POST, json: forged).status == 400)

            let submission = try JSONSerialization.data(withJSONObject: [
                "user_id": "u1",
                "signed_transaction": pki.signTransaction(.testSubscription(transactionId: "2000", purchaseDate: now)),
            ])
            let transactions = base + "/v1/apple/transactions"
            let first = try await httpRequest(transactions, bearer: TestAPIKey.secret, method: .POST, json: submission)
            #expect(first.status == 200)
            #expect(first.body.contains(#""original_transaction_id":"2000""#))
            // A resend is still answered with the view, and counted as the duplicate it is.
            let resent = try await httpRequest(transactions, bearer: TestAPIKey.secret, method: .POST, json: submission)
            #expect(resent.status == 200)
            #expect(resent.body == first.body.replacingOccurrences(of: Self.evaluatedAt(first.body), with: Self.evaluatedAt(resent.body)))

            // A body over the limit is counted at a webhook as at a submission.
            let oversized = Data(repeating: UInt8(ascii: " "), count: (1 << 20) + 1)
            #expect(try await httpRequest(base + "/v1/apple/notifications/v1", method: .POST, json: oversized).status == 413)
            #expect(try await httpRequest(transactions, bearer: TestAPIKey.secret, method: .POST, json: oversized).status == 413)

            let metrics = try await httpRequest(base + "/metrics").body
            for (endpoint, result) in [
                ("POST /v1/apple/notifications/v2", "recorded"), ("POST /v1/apple/notifications/v2", "duplicate"),
                ("POST /v1/apple/notifications/v2", "untrusted_chain"), ("POST /v1/apple/notifications/v1", "payload_too_large"),
                ("POST /v1/apple/transactions", "payload_too_large"),
                ("POST /v1/apple/transactions", "recorded"), ("POST /v1/apple/transactions", "duplicate"),
            ] {
                let series = #"subledger_ingest_total{endpoint="\#(endpoint)",result="\#(result)"}"#
                #expect(MetricsSample.value(series, in: metrics) == 1, "\(endpoint) \(result)")
            }
            #expect(!metrics.contains(#"result="ok""#))
            // Every signed input verified is timed once, refused or not; a body refused for its size
            // never reached the verifier.
            #expect(MetricsSample.value(#"subledger_verification_duration_count{kind="notification_v2"}"#, in: metrics) == 3, "\(metrics)")
            #expect(MetricsSample.value(#"subledger_verification_duration_count{kind="transaction"}"#, in: metrics) == 2, "\(metrics)")
            #expect((MetricsSample.value(#"subledger_verification_duration_sum{kind="notification_v2"}"#, in: metrics) ?? 0) > 0, "\(metrics)")

            server.signal(SIGTERM)
            #expect(try await server.waitForExit() == 0)
        }
    }

    /// The view's `evaluated_at` value, the one part of two answers for the same state that differs.
    private static func evaluatedAt(_ body: String) -> String {
        guard let range = body.range(of: #""evaluated_at":"[^"]*""#, options: .regularExpression) else { return "" }
        return String(body[range])
    }
}
