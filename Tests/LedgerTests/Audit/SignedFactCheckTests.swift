import AppStore
import AppStoreTesting
import EventStore
import EventStoreTesting
import Foundation
@testable import Ledger
import Testing

/// Each signed fact rebuilt from its recorded text, as ingestion built it: what it finds for a fact
/// as recorded, one whose text was changed, one of an app no longer configured, and unsigned inputs.
struct SignedFactCheckTests {
    typealias H = LedgerHarness

    @Test(arguments: TestDatabases.dialects)
    func recordedFactsMatchAndChangedOnesAreFound(_ dialect: StorageDialect) async throws {
        try await H.run(dialect: dialect) { h in
            try await h.notify(.subscribed, .initialBuy, transaction: H.transaction("1000", purchased: 0, expires: 30),
                               renewal: H.renewal(signed: 0), at: 0)
            try await h.submit(user: "u1", H.transaction("2000", original: "2000", purchased: 1, expires: 31), renewal: H.renewal(original: "2000", signed: 1), at: 1)
            // From the streams: on PostgreSQL the global feed holds back events while other tests'
            // transactions are open.
            var events: [RecordedEvent] = []
            for stream in ["subscription-1000", "subscription-2000", "user-u1"] { events += try await h.store.readStream(stream) }
            let check = SignedFactCheck(verifier: try SignedDataVerifier(configuration: h.pki.verifierConfiguration(apps: [
                AppStoreApp(bundleId: H.bundleId, appAppleId: 1_234_567_890, environments: [.sandbox]),
            ])))
            var outcomes: [String: [SignedFactCheck.Outcome]] = [:]
            for event in events { outcomes[event.type, default: []].append(await check.check(event)) }
            #expect(outcomes[LedgerEventType.notificationV2] == [.matches])
            #expect(outcomes[LedgerEventType.transaction] == [.matches])
            #expect(outcomes[LedgerEventType.userLinked]?.allSatisfy { $0 == .notSigned } == true)

            // The recorded text changed: one character of the signed payload.
            let notification = try #require(events.first { $0.type == LedgerEventType.notificationV2 })
            var fact = try JSONDecoder().decode(AppleFact.self, from: notification.data)
            let jws = fact.raw
            let payloadStart = try #require(jws.firstIndex(of: ".")).utf16Offset(in: jws) + 20
            var characters = Array(jws)
            characters[payloadStart] = characters[payloadStart] == "A" ? "B" : "A"
            fact.raw = String(characters)
            var changed = notification
            changed.data = try JSONEncoder().encode(fact)
            guard case .doesNotVerify(let code, let what) = await check.check(changed) else {
                Issue.record("a changed text was not found")
                return
            }
            // The changed character breaks the payload's JSON (read first, for its signed date) or
            // only the signature, depending on the notification's bytes.
            #expect(code == .invalidSignature || code == .invalidFormat, "\(String(describing: code)): \(what)")

            // Checked trusting only Apple's root: the text's test chain leads to no trusted root.
            let appleRootOnly = SignedFactCheck(verifier: try SignedDataVerifier(configuration: .appleDefault(apps: [
                AppStoreApp(bundleId: H.bundleId, appAppleId: 1_234_567_890, environments: [.sandbox]),
            ])))
            guard case .doesNotVerify(let rootCode, let rootWhat) = await appleRootOnly.check(notification) else {
                Issue.record("a fact whose chain leads to no trusted root was not found")
                return
            }
            #expect(rootCode == .untrustedChain, "\(String(describing: rootCode)): \(rootWhat)")

            // A decoded field changed: the renewal's auto-renew in the submission.
            let submission = try #require(events.first { $0.type == LedgerEventType.transaction })
            var edited = try JSONDecoder().decode(AppleFact.self, from: submission.data)
            edited.renewals[0].autoRenewStatus = false
            var forged = submission
            forged.data = try JSONEncoder().encode(edited)
            #expect(await check.check(forged) == .differs("renewals[0].autoRenewStatus is false, the signed text gives true"))

            // A signed fact given an unsigned type, to take it out of the check, is found by what it
            // still carries: its signature check in the metadata, or a V2 body as a V1 notification's text.
            var retyped = notification
            retyped.type = LedgerEventType.notificationV1
            guard case .differs(let retypedWhat) = await check.check(retyped) else {
                Issue.record("a signed fact with a changed type was not found")
                return
            }
            #expect(retypedWhat.hasPrefix("its metadata records a signature check"), "\(retypedWhat)")
            retyped.metadata = Data(#"{"receivedAt":0,"source":"POST /v1/apple/notifications/v1"}"#.utf8)
            guard case .differs(let bodyWhat) = await check.check(retyped) else {
                Issue.record("a V2 body recorded as a V1 notification was not found")
                return
            }
            #expect(bodyWhat.hasPrefix("its text is a V2 notification body"), "\(bodyWhat)")

            // Checked with a configuration that no longer lists the app: not a finding.
            let elsewhere = SignedFactCheck(verifier: try SignedDataVerifier(configuration: h.pki.verifierConfiguration(apps: [
                AppStoreApp(bundleId: "com.other.app", environments: [.sandbox]),
            ])))
            guard case .unchecked(let reason) = await elsewhere.check(notification) else {
                Issue.record("an unconfigured app's fact was not left unchecked")
                return
            }
            #expect(reason.hasPrefix("unknown_app: "), "\(reason)")
        }
    }
}
