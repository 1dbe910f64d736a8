import AppStore
import AppStoreTesting
import EventStore
import EventStoreTesting
import Foundation
import Ledger
import Testing

/// V1 notifications and verifyReceipt responses map onto the same observations as StoreKit 2.
@Suite("Legacy inputs: V1 notifications and receipts")
struct LegacyInputTests {
    typealias H = LedgerHarness

    static func entry(_ id: String, original: String = "2000", purchased: Double, expires: Double, cancelled: Double? = nil) -> LegacyInAppTransaction {
        LegacyInAppTransaction(
            quantity: "1", productId: "pro.monthly", transactionId: id, originalTransactionId: original,
            purchaseDate: Day.apple(purchased), originalPurchaseDate: Day.apple(0), expiresDate: Day.apple(expires),
            cancellationDate: cancelled.map(Day.apple), cancellationReason: cancelled == nil ? nil : "0",
            isTrialPeriod: LegacyFlag(rawValue: "false"), isUpgraded: nil
        )
    }

    static func v1Body(_ type: NotificationTypeV1, password: String = "s3cret", entries: [LegacyInAppTransaction], autoRenew: Bool = true) throws -> Data {
        let notification = NotificationV1(
            notificationType: type, password: password, environment: .sandbox, bid: H.bundleId,
            autoRenewStatus: LegacyFlag(rawValue: autoRenew ? "true" : "false"),
            unifiedReceipt: UnifiedReceipt(
                environment: .sandbox, latestReceiptInfo: entries,
                pendingRenewalInfo: [LegacyPendingRenewalInfo(autoRenewProductId: "pro.monthly", autoRenewStatus: LegacyFlag(rawValue: autoRenew ? "1" : "0"), originalTransactionId: "2000", productId: "pro.monthly")],
                status: 0
            )
        )
        return try JSONEncoder().encode(notification)
    }

    static func pending(autoRenew: Bool = true, graceUntil: Double? = nil, retry: Bool = false) -> LegacyPendingRenewalInfo {
        LegacyPendingRenewalInfo(
            autoRenewProductId: "pro.monthly", autoRenewStatus: LegacyFlag(rawValue: autoRenew ? "1" : "0"),
            gracePeriodExpiresDate: graceUntil.map(Day.apple), isInBillingRetryPeriod: LegacyFlag(rawValue: retry ? "1" : "0"),
            originalTransactionId: "2000", productId: "pro.monthly"
        )
    }

    /// Registers a verifyReceipt answer made at `day` for `receipt`.
    static func answer(_ h: H, _ receipt: String, day: Double, entries: [LegacyInAppTransaction], pending: [LegacyPendingRenewalInfo]?, status: Int = 0) {
        h.receipts.register(
            VerifyReceiptResponse(
                status: status, environment: .sandbox, receipt: LegacyReceipt(bundleId: H.bundleId, requestDate: Day.apple(day)),
                latestReceiptInfo: entries, pendingRenewalInfo: pending
            ),
            for: receipt
        )
    }

    static func submit(_ h: H, _ receipt: String, user: String = "u1", at day: Double) async throws {
        h.clock.set(Day.date(day))
        _ = try await h.ledger.submitReceipt(userId: user, receiptData: receipt, context: .init(source: "test"))
    }

    /// A second configured app, with a secret of its own.
    static let otherApp = "com.example.other"

    /// Runs `body` with this app and `other` (taking `otherEnvironments`) configured.
    static func runWithTwoApps(
        otherEnvironments: Set<AppStoreEnvironment>, other: String = otherApp, hasOwnReceiptSecret: Bool = false,
        _ body: @Sendable @escaping (H) async throws -> Void
    ) async throws {
        let apps = [
            AppStoreApp(bundleId: H.bundleId, appAppleId: 1_234_567_890, environments: [.sandbox, .production]),
            AppStoreApp(bundleId: other, appAppleId: 987, environments: otherEnvironments),
        ]
        try await H.run(sharedSecrets: [H.bundleId: "s3cret", other: "other-secret"], hasOwnReceiptSecret: hasOwnReceiptSecret, apps: apps, body)
    }

    /// A real app receipt as Xcode writes it (Apple's public sample), readable without Apple.
    static func xcodeReceipt() throws -> String {
        try AppleSamples.text("xcode/xcode-app-receipt-empty")
    }

    static let xcodeReceiptApp = AppleSamples.xcodeReceiptApp

    static func submitXcodeReceipt(_ h: H, bundleId: String?) async throws {
        _ = try await h.ledger.submitReceipt(userId: "u1", receiptData: try xcodeReceipt(), bundleId: bundleId, context: .init(source: "test"))
    }

    /// Has verifyReceipt accept the Xcode receipt (chain 2000, active until day 30) and submits it
    /// on day 1 without naming its app.
    static func submitAcceptedXcodeReceipt(_ h: H) async throws {
        h.receipts.register(
            VerifyReceiptResponse(
                status: 0, environment: .sandbox, receipt: LegacyReceipt(bundleId: xcodeReceiptApp, requestDate: Day.apple(1)),
                latestReceiptInfo: [entry("2000", purchased: 0, expires: 30)], pendingRenewalInfo: [pending()]
            ),
            for: try xcodeReceipt()
        )
        h.clock.set(Day.date(1))
        try await submitXcodeReceipt(h, bundleId: nil)
    }

    @Test func v1InitialBuyRenewAndCancelFoldLikeV2() async throws {
        try await H.run { h in
            _ = try await h.ledger.link(userId: "u1", originalTransactionId: "2000", source: "submit", context: .init(source: "test"))
            h.clock.set(Day.date(0))
            _ = try await h.ledger.ingestNotificationV1(body: try Self.v1Body(.initialBuy, entries: [Self.entry("2000", purchased: 0, expires: 30)]), context: .init(source: "test"))
            #expect(try await h.entitlement("pro", of: "u1", at: 1)?.status == "active")

            h.clock.set(Day.date(30))
            _ = try await h.ledger.ingestNotificationV1(body: try Self.v1Body(.didRenew, entries: [
                Self.entry("2001", purchased: 30, expires: 60), Self.entry("2000", purchased: 0, expires: 30),
            ]), context: .init(source: "test"))
            #expect(try await h.chain("2000", at: 45)?.latestTransactionId == "2001")
            #expect(try await h.entitlement("pro", of: "u1", at: 45)?.willRenew == true)

            h.clock.set(Day.date(40))
            _ = try await h.ledger.ingestNotificationV1(body: try Self.v1Body(.cancel, entries: [
                Self.entry("2001", purchased: 30, expires: 60, cancelled: 40), Self.entry("2000", purchased: 0, expires: 30),
            ], autoRenew: false), context: .init(source: "test"))
            let cancelled = try #require(try await h.entitlement("pro", of: "u1", at: 41))
            #expect(cancelled.status == "refunded")
            #expect(!cancelled.active)
        }
    }

    /// A V1 notification without `pending_renewal_info` still says whether its subscription renews,
    /// in its own `auto_renew_status` (dated by `auto_renew_status_change_date_ms`), as Apple's V1
    /// documentation has DID_CHANGE_RENEWAL_STATUS read (legacy walkthrough: turned off that way,
    /// `will_renew` stayed true). With `pending_renewal_info`, that is what counts, as before.
    @Test func aV1NotificationWithoutPendingRenewalInfoIsReadForItsAutoRenewStatus() async throws {
        try await H.run { h in
            _ = try await h.ledger.link(userId: "u1", originalTransactionId: "2000", source: "submit", context: .init(source: "test"))
            h.clock.set(Day.date(0))
            _ = try await h.ledger.ingestNotificationV1(body: try Self.v1Body(.initialBuy, entries: [Self.entry("2000", purchased: 0, expires: 30)]), context: .init(source: "test"))
            #expect(try await h.entitlement("pro", of: "u1", at: 5)?.willRenew == true)
            h.clock.set(Day.date(10))
            let turnedOff = NotificationV1(
                notificationType: .didChangeRenewalStatus, password: "s3cret", environment: .sandbox, bid: H.bundleId,
                autoRenewProductId: "pro.monthly", autoRenewStatus: LegacyFlag(rawValue: "false"), autoRenewStatusChangeDate: Day.apple(9),
                unifiedReceipt: UnifiedReceipt(environment: .sandbox, latestReceiptInfo: [Self.entry("2000", purchased: 0, expires: 30)], status: 0)
            )
            _ = try await h.ledger.ingestNotificationV1(body: try JSONEncoder().encode(turnedOff), context: .init(source: "test"))
            let after = try #require(try await h.entitlement("pro", of: "u1", at: 10))
            #expect(after.willRenew == false)
            #expect(after.status == "active")
            // From the change Apple dated, not from the notification's arrival.
            #expect(try await h.entitlement("pro", of: "u1", at: 9.5)?.willRenew == false)
            #expect(try await h.entitlement("pro", of: "u1", at: 8.5)?.willRenew == true)
        }
    }

    /// Of several subscriptions in the receipt, the auto-renew fields are put on the one whose
    /// latest purchase is of `auto_renew_product_id`, and on none when that tells none apart
    /// (re-test: they went to the newest, so renewal turned off on an older one was put on another).
    @Test func aV1NotificationsAutoRenewFieldsGoToTheSubscriptionTheyName() async throws {
        try await H.run { h in
            var basic = Self.entry("3000", original: "3000", purchased: 5, expires: 35)
            basic.productId = "basic.monthly"
            let entries = [basic, Self.entry("2000", purchased: 0, expires: 30)]
            func turnOff(_ product: String?, at day: Double) async throws {
                h.clock.set(Day.date(day))
                let body = NotificationV1(
                    notificationType: .didChangeRenewalStatus, password: "s3cret", environment: .sandbox, bid: H.bundleId,
                    autoRenewProductId: product, autoRenewStatus: LegacyFlag(rawValue: "false"), autoRenewStatusChangeDate: Day.apple(day),
                    unifiedReceipt: UnifiedReceipt(environment: .sandbox, latestReceiptInfo: entries, status: 0)
                )
                _ = try await h.ledger.ingestNotificationV1(body: try JSONEncoder().encode(body), context: .init(source: "test"))
            }
            h.clock.set(Day.date(6))
            let bought = NotificationV1(
                notificationType: .initialBuy, password: "s3cret", environment: .sandbox, bid: H.bundleId,
                unifiedReceipt: UnifiedReceipt(environment: .sandbox, latestReceiptInfo: entries, pendingRenewalInfo: [
                    LegacyPendingRenewalInfo(autoRenewProductId: "pro.monthly", autoRenewStatus: LegacyFlag(rawValue: "1"), originalTransactionId: "2000", productId: "pro.monthly"),
                    LegacyPendingRenewalInfo(autoRenewProductId: "basic.monthly", autoRenewStatus: LegacyFlag(rawValue: "1"), originalTransactionId: "3000", productId: "basic.monthly"),
                ], status: 0)
            )
            _ = try await h.ledger.ingestNotificationV1(body: try JSONEncoder().encode(bought), context: .init(source: "test"))
            // A product that names neither: nothing is put on either.
            try await turnOff("pro.yearly", at: 8)
            #expect(try await h.chain("2000", at: 9)?.willRenew == true)
            #expect(try await h.chain("3000", at: 9)?.willRenew == true)
            // The older subscription's product: that one turns off, the newer one keeps renewing.
            try await turnOff("pro.monthly", at: 10)
            #expect(try await h.chain("2000", at: 11)?.willRenew == false)
            #expect(try await h.chain("3000", at: 11)?.willRenew == true)
        }
    }

    /// A V1 notification naming no subscription (Apple leaves a consumable the app finished out of
    /// `latest_receipt_info`, so its CONSUMPTION_REQUEST or REFUND can carry none) is Apple's all the
    /// same: kept on the app's stream, changing no subscription, and a resend is a duplicate
    /// (legacy walkthrough: it was refused as malformed, and Apple would send it again and again).
    @Test func aV1NotificationNamingNoSubscriptionIsKeptOnTheAppsStream() async throws {
        try await H.run { h in
            let body = try JSONEncoder().encode(NotificationV1(
                notificationType: NotificationTypeV1(rawValue: "CONSUMPTION_REQUEST"), password: "s3cret", environment: .sandbox, bid: H.bundleId,
                unifiedReceipt: UnifiedReceipt(environment: .sandbox, latestReceiptInfo: [], status: 0)
            ))
            let recorded = try await h.ledger.ingestNotificationV1(body: body, context: .init(source: "test"))
            #expect(!recorded.isDuplicate)
            let events = try await h.store.readStream(LedgerEventType.appStream(H.bundleId))
            #expect(events.map(\.type) == [LedgerEventType.notificationV1])
            #expect(try await h.ledger.ingestNotificationV1(body: body, context: .init(source: "test")).isDuplicate)
            #expect(try await h.store.eventCount() == 1)
        }
    }

    /// A V1 notification's receipt lists every subscription of the account; it is kept on the stream
    /// of the latest one only. What the ledger knew (`as_of`) must still count it for the others.
    @Test func asOfCountsAV1NotificationForEverySubscriptionItNames() async throws {
        try await H.run { h in
            for chain in ["2000", "3000"] {
                _ = try await h.ledger.link(userId: "u1", originalTransactionId: chain, source: "submit", context: .init(source: "test"))
            }
            h.clock.set(Day.date(5))
            _ = try await h.ledger.ingestNotificationV1(body: try Self.v1Body(.initialBuy, entries: [
                Self.entry("2000", purchased: 0, expires: 30), Self.entry("3000", original: "3000", purchased: 5, expires: 35),
            ]), context: .init(source: "test"))
            let live = try await h.ledger.entitlements(userId: "u1", at: Day.date(6))
            let known = try await h.ledger.entitlements(userId: "u1", asOf: Day.date(6))
            #expect(live.subscriptions.map(\.originalTransactionId) == ["2000", "3000"])
            #expect(known.subscriptions == live.subscriptions)
            #expect(known.entitlements == live.entitlements)
        }
    }

    /// The V1 notification is kept on the stream of its latest subscription, 3000, which u1 does not
    /// own; it names u1's 2000 too. `as_of` finds it through the streams 2000's document lists.
    @Test(arguments: TestDatabases.dialects)
    func asOfCountsAV1NotificationKeptOnASubscriptionTheUserDoesNotOwn(_ dialect: StorageDialect) async throws {
        try await H.run(dialect: dialect) { h in
            _ = try await h.ledger.link(userId: "u1", originalTransactionId: "2000", source: "submit", context: .init(source: "test"))
            h.clock.set(Day.date(5))
            _ = try await h.ledger.ingestNotificationV1(body: try Self.v1Body(.initialBuy, entries: [
                Self.entry("2000", purchased: 0, expires: 30), Self.entry("3000", original: "3000", purchased: 5, expires: 35),
            ]), context: .init(source: "test"))
            #expect(try await h.store.readStream("subscription-3000").count == 1)
            let live = try await h.ledger.entitlements(userId: "u1", at: Day.date(6))
            let known = try await h.ledger.entitlements(userId: "u1", asOf: Day.date(6))
            #expect(live.subscriptions.map(\.originalTransactionId) == ["2000"])
            #expect(known.subscriptions == live.subscriptions)
            #expect(known.entitlements == live.entitlements)
            #expect(try await h.ledger.entitlements(userId: "u1", asOf: Day.date(4)).entitlements.allSatisfy { !$0.active })
        }
    }

    /// Under `keep`, bob's receipt naming alice's subscription is recorded on bob's stream (and his
    /// claim refused); the live view counts it for alice, and so must what the ledger knew then.
    @Test(arguments: TestDatabases.dialects)
    func asOfCountsAnotherUsersReceiptNamingTheUsersSubscription(_ dialect: StorageDialect) async throws {
        try await H.run(dialect: dialect, policy: .keep) { h in
            try await h.submit(user: "alice", H.transaction("1000", purchased: 0, expires: 30), at: 0)
            let renewed = LegacyInAppTransaction(
                quantity: "1", productId: "pro.monthly", transactionId: "1001", originalTransactionId: "1000",
                purchaseDate: Day.apple(30), originalPurchaseDate: Day.apple(0), expiresDate: Day.apple(60),
                isTrialPeriod: LegacyFlag(rawValue: "false")
            )
            h.receipts.register(
                VerifyReceiptResponse(status: 0, environment: .sandbox, receipt: LegacyReceipt(bundleId: H.bundleId, requestDate: Day.apple(31)), latestReceiptInfo: [renewed]),
                for: "bobs-receipt"
            )
            h.clock.set(Day.date(31))
            await #expect {
                _ = try await h.ledger.submitReceipt(userId: "bob", receiptData: "bobs-receipt", context: .init(source: "test"))
            } throws: { ($0 as? LedgerError)?.code == .linkConflict }
            let live = try await h.ledger.entitlements(userId: "alice", at: Day.date(45))
            #expect(live.subscriptions.first?.expiresAt == Day.date(60))
            let known = try await h.ledger.entitlements(userId: "alice", asOf: Day.date(32), at: Day.date(45))
            #expect(known.subscriptions == live.subscriptions)
            #expect(known.entitlements == live.entitlements)
            // Before bob's receipt arrived, the ledger knew only the first month.
            let earlier = try await h.ledger.entitlements(userId: "alice", asOf: Day.date(30), at: Day.date(45))
            #expect(earlier.subscriptions.first?.expiresAt == Day.date(30))
        }
    }

    /// The shared secret in a V1 body is not kept: the event's raw text is the body as sent with only
    /// the password's value replaced, and a resend is still a duplicate of it.
    @Test func v1BodyIsKeptWithItsPasswordRedacted() async throws {
        try await H.run { h in
            h.clock.set(Day.date(0))
            let body = try Self.v1Body(.initialBuy, entries: [Self.entry("2000", purchased: 0, expires: 30)])
            let sent = String(decoding: body, as: UTF8.self)
            #expect(sent.contains(#""password":"s3cret""#))
            let first = try await h.ledger.ingestNotificationV1(body: body, context: .init(source: "test"))
            let again = try await h.ledger.ingestNotificationV1(body: body, context: .init(source: "test"))
            #expect(again.isDuplicate && again.eventID == first.eventID)
            let events = try await h.store.readAll(after: .start, limit: 10).events
            #expect(events.count == 1)
            let event = try #require(events.first)
            let fact = try JSONDecoder().decode(AppleFact.self, from: event.data)
            #expect(fact.raw == sent.replacingOccurrences(of: #""password":"s3cret""#, with: #""password":"[redacted]""#))
            #expect(!String(decoding: event.data, as: UTF8.self).contains("s3cret"))
        }
    }

    /// A V1 body whose environment is not one Apple's legacy APIs use, or that states none, is refused
    /// like a signed input from an environment the app does not accept, not recorded as Production.
    @Test(arguments: [LegacyEnvironment(rawValue: "Xcode"), nil])
    func v1FromAnUnknownOrUnstatedEnvironmentIsRefused(_ environment: LegacyEnvironment?) async throws {
        try await H.run { h in
            let notification = NotificationV1(
                notificationType: .initialBuy, password: "s3cret", environment: environment, bid: H.bundleId,
                unifiedReceipt: UnifiedReceipt(environment: environment, latestReceiptInfo: [Self.entry("2000", purchased: 0, expires: 30)], status: 0)
            )
            do {
                _ = try await h.ledger.ingestNotificationV1(body: try JSONEncoder().encode(notification), context: .init(source: "test"))
                Issue.record("a V1 notification from environment \(environment?.rawValue ?? "(none)") was recorded")
            } catch let error as LedgerError {
                #expect(error.code == .environmentNotAccepted)
            }
            #expect(try await h.store.readAll(after: .start, limit: 10).events.isEmpty)
        }
    }

    /// Without a top-level `environment` the one in `unified_receipt` is the body's statement.
    @Test func v1StatingItsEnvironmentOnlyInItsReceiptIsRecordedFromIt() async throws {
        try await H.run { h in
            let notification = NotificationV1(
                notificationType: .initialBuy, password: "s3cret", environment: nil, bid: H.bundleId,
                unifiedReceipt: UnifiedReceipt(environment: .sandbox, latestReceiptInfo: [Self.entry("2000", purchased: 0, expires: 30)], status: 0)
            )
            _ = try await h.ledger.ingestNotificationV1(body: try JSONEncoder().encode(notification), context: .init(source: "test"))
            let chain = try #require(try await h.ledger.chain(originalTransactionId: "2000", at: Day.date(1)))
            #expect(chain.environment == "Sandbox")
        }
    }

    /// A body without a password is told so, not that its password is wrong.
    @Test func v1WithoutAPasswordIsToldSo() async throws {
        try await H.run { h in
            let body = try JSONSerialization.jsonObject(with: Self.v1Body(.initialBuy, entries: [Self.entry("2000", purchased: 0, expires: 30)])) as? [String: Any]
            var unsigned = try #require(body)
            unsigned["password"] = nil
            await #expect {
                _ = try await h.ledger.ingestNotificationV1(body: try JSONSerialization.data(withJSONObject: unsigned), context: .init(source: "test"))
            } throws: { error in
                error as? LedgerError == LedgerError(.invalidPassword, "the notification has no password; Apple sends the app's shared secret in it")
            }
            #expect(try await h.store.eventCount() == 0)
        }
    }

    /// A V1 body posted to the V2 endpoint is told where it goes, as a V2 body posted to V1 is.
    @Test func aV1BodyPostedAsV2IsToldWhereItGoes() async throws {
        try await H.run { h in
            let body = try Self.v1Body(.initialBuy, entries: [Self.entry("2000", purchased: 0, expires: 30)])
            await #expect {
                _ = try await h.ledger.ingestNotificationV2(body: body, context: .init(source: "test"))
            } throws: { error in
                error as? LedgerError == LedgerError(.malformedBody, "the body is a V1 notification (notification_type, no signedPayload)", belongsTo: .notificationV1)
            }
            #expect(try await h.store.eventCount() == 0)
        }
    }

    @Test func v1WithAWrongPasswordIsRefusedAndRecordsNothing() async throws {
        try await H.run { h in
            do {
                _ = try await h.ledger.ingestNotificationV1(body: try Self.v1Body(.initialBuy, password: "guess", entries: [Self.entry("2000", purchased: 0, expires: 30)]), context: .init(source: "test"))
                Issue.record("a wrong password was accepted")
            } catch let error as LedgerError {
                #expect(error.code == .invalidPassword)
            }
            #expect(try await h.store.readAll(after: .start, limit: 10).events.isEmpty)
        }
    }

    @Test func aValidatedLegacyReceiptGrantsAndLinksEveryChainInIt() async throws {
        try await H.run { h in
            let response = VerifyReceiptResponse(
                status: 0, environment: .sandbox,
                receipt: LegacyReceipt(bundleId: H.bundleId, requestDate: Day.apple(10)),
                latestReceiptInfo: [Self.entry("2000", purchased: 0, expires: 30)],
                pendingRenewalInfo: [LegacyPendingRenewalInfo(autoRenewProductId: "pro.monthly", autoRenewStatus: LegacyFlag(rawValue: "1"), originalTransactionId: "2000", productId: "pro.monthly")]
            )
            h.receipts.register(response, for: "base64-receipt")
            h.clock.set(Day.date(10))
            let first = try await h.ledger.submitReceipt(userId: "u1", receiptData: "base64-receipt", context: .init(source: "test"))
            #expect(!first.isDuplicate)
            let view = first.entitlements
            #expect(view.entitlements.first?.id == "pro")
            #expect(view.entitlements.first?.active == true)
            #expect(view.subscriptions.map(\.originalTransactionId) == ["2000"])
            // The same response again is a duplicate fact, answered with the same view.
            let again = try await h.ledger.submitReceipt(userId: "u1", receiptData: "base64-receipt", context: .init(source: "test"))
            #expect(again.isDuplicate)
            #expect(again.entitlements.subscriptions.map(\.originalTransactionId) == ["2000"])
            #expect(try await h.store.readStream("user-u1").filter { $0.type == "apple.receipt.validated" }.count == 1)
        }
    }

    /// Under `keep`, a receipt naming a chain another user owns is refused with `link_conflict`, but
    /// the receipt is recorded and every other chain in it is linked, in the same transaction.
    @Test(arguments: TestDatabases.dialects)
    func aReceiptUnderKeepLinksItsFreeChainsAndRefusesATakenOne(_ dialect: StorageDialect) async throws {
        try await H.run(dialect: dialect, policy: .keep) { h in
            try await h.submit(user: "alice", H.transaction("1000", purchased: 0, expires: 30), at: 0)
            let entries = ["1000", "3000"].map { chain in
                LegacyInAppTransaction(
                    quantity: "1", productId: "pro.monthly", transactionId: chain + "1", originalTransactionId: chain,
                    purchaseDate: Day.apple(0), originalPurchaseDate: Day.apple(0), expiresDate: Day.apple(30),
                    isTrialPeriod: LegacyFlag(rawValue: "false")
                )
            }
            h.receipts.register(
                VerifyReceiptResponse(status: 0, environment: .sandbox, receipt: LegacyReceipt(bundleId: H.bundleId, requestDate: Day.apple(1)), latestReceiptInfo: entries),
                for: "two-chains"
            )
            h.clock.set(Day.date(1))
            do {
                _ = try await h.ledger.submitReceipt(userId: "u1", receiptData: "two-chains", context: .init(source: "test"))
                Issue.record("a claim on alice's chain was accepted under keep")
            } catch let error as LedgerError {
                #expect(error.code == .linkConflict)
            }
            let stream = try await h.store.readStream("user-u1")
            #expect(stream.map(\.type) == ["apple.receipt.validated", "user.linked", "user.linked"])
            let links = try stream.dropFirst().map { try JSONDecoder().decode(UserLink.self, from: $0.data) }
            #expect(links.map(\.originalTransactionId) == ["1000", "3000"])
            #expect(links.map(\.outcome) == [.rejected, .linked])
            let view = try await h.ledger.entitlements(userId: "u1", at: Day.date(2))
            #expect(view.subscriptions.map(\.originalTransactionId) == ["3000"])
            #expect(try await h.entitlement("pro", of: "alice", at: 2)?.originalTransactionId == "1000")
        }
    }

    /// With several apps, a receipt is validated with the shared secret of the app `bundle_id` names,
    /// and must be that app's; without `bundle_id` the validator's default secret goes.
    @Test func aReceiptIsValidatedWithTheSecretOfTheAppItNames() async throws {
        let other = Self.otherApp
        try await Self.runWithTwoApps(otherEnvironments: [.production]) { h in
            func response(_ bundleId: String, _ environment: LegacyEnvironment) -> VerifyReceiptResponse {
                VerifyReceiptResponse(
                    status: 0, environment: environment, receipt: LegacyReceipt(bundleId: bundleId, requestDate: Day.apple(1)),
                    latestReceiptInfo: [Self.entry("2000", purchased: 0, expires: 30)]
                )
            }
            h.receipts.register(response(other, .production), for: "other-app")
            h.receipts.register(response(H.bundleId, .sandbox), for: "main-app")
            h.receipts.register(response(other, .sandbox), for: "other-app-sandbox")
            h.clock.set(Day.date(1))
            let context = IngestContext(source: "test")

            _ = try await h.ledger.submitReceipt(userId: "u1", receiptData: "other-app", bundleId: other, context: context)
            #expect(h.receipts.requests.last?.sharedSecret == "other-secret")
            _ = try await h.ledger.submitReceipt(userId: "u2", receiptData: "main-app", context: context)
            #expect(h.receipts.requests.last?.sharedSecret == nil)
            let recorded = try await h.store.eventCount()

            let refusals: [(String, String?, LedgerError.Code)] = [
                ("main-app", other, .bundleMismatch),               // the receipt is not the named app's
                ("other-app-sandbox", nil, .environmentNotAccepted), // the other app takes Production only
                ("other-app", "com.unknown.app", .unknownApp),     // refused before Apple is asked
            ]
            let asked = h.receipts.requests.count
            for (receipt, bundleId, code) in refusals {
                do {
                    _ = try await h.ledger.submitReceipt(userId: "u3", receiptData: receipt, bundleId: bundleId, context: context)
                    Issue.record("\(receipt) for \(bundleId ?? "no bundle id") was accepted")
                } catch let error as LedgerError {
                    #expect(error.code == code)
                }
            }
            #expect(h.receipts.requests.count == asked + 2)
            #expect(try await h.store.eventCount() == recorded)
        }
    }

    /// A V1 body is kept on the stream of its latest purchase; of two bought at the same moment, the
    /// later id counts as a number, as a chain picks its governing transaction ("10" after "9").
    @Test func aV1BodyIsKeptWithItsLatestPurchaseComparingIdsAsNumbers() async throws {
        try await H.run { h in
            let body = try Self.v1Body(.didRenew, entries: [
                Self.entry("10", original: "10", purchased: 5, expires: 35), Self.entry("9", original: "9", purchased: 5, expires: 35),
            ])
            h.clock.set(Day.date(6))
            _ = try await h.ledger.ingestNotificationV1(body: body, context: .init(source: "test"))
            #expect(try await h.store.readStream("subscription-10").map(\.type) == [LedgerEventType.notificationV1])
            #expect(try await h.store.readStream("subscription-9").isEmpty)
        }
    }

    /// A refund Apple confirmed is not undone by a V1 notification Apple wrote before the refund and
    /// delivered after it: a V1 transaction counts from the latest date it states, not its arrival.
    @Test func aLateV1NotificationDoesNotUndoARefund() async throws {
        try await H.run { h in
            Self.answer(h, "refunded", day: 20, entries: [Self.entry("2000", purchased: 0, expires: 30, cancelled: 15)], pending: [Self.pending()])
            try await Self.submit(h, "refunded", at: 20)
            #expect(try await h.entitlement("pro", of: "u1", at: 21)?.status == "refunded")
            h.clock.set(Day.date(25))
            _ = try await h.ledger.ingestNotificationV1(body: try Self.v1Body(.didRenew, entries: [Self.entry("2000", purchased: 0, expires: 30)]), context: .init(source: "test"))
            let after = try #require(try await h.entitlement("pro", of: "u1", at: 26))
            #expect(after.status == "refunded")
            #expect(!after.active)
        }
    }

    /// A receipt without `latest_receipt_info` (an app without subscriptions) lists the receipt the
    /// app sent, which is only as current as its creation: a refund Apple signed after that is not
    /// undone when the old receipt is submitted later, while a receipt created later still counts.
    @Test func aReceiptsOwnEntriesCountFromItsCreationNotItsValidation() async throws {
        try await H.run { h in
            func answer(_ receipt: String, created: Double, validated: Double) {
                let lifetime = LegacyInAppTransaction(
                    quantity: "1", productId: "lifetime.pro", transactionId: "5000", originalTransactionId: "5000",
                    purchaseDate: Day.apple(0), originalPurchaseDate: Day.apple(0), isTrialPeriod: LegacyFlag(rawValue: "false")
                )
                let decoded = LegacyReceipt(bundleId: H.bundleId, receiptCreationDate: Day.apple(created), requestDate: Day.apple(validated), inApp: [lifetime])
                h.receipts.register(VerifyReceiptResponse(status: 0, environment: .sandbox, receipt: decoded), for: receipt)
            }
            answer("device-receipt", created: 1, validated: 60)
            answer("refreshed-receipt", created: 70, validated: 70)
            let refunded = H.transaction("5000", original: "5000", product: "lifetime.pro", purchased: 0, type: .nonConsumable, signed: 50, revoked: 50)
            try await h.notify(.refund, transaction: refunded, at: 50)
            try await Self.submit(h, "device-receipt", at: 60)
            let stale = try #require(try await h.entitlement("pro", of: "u1", at: 61))
            #expect(stale.status == "refunded")
            #expect(!stale.active)
            h.clock.set(Day.date(65))
            #expect(try await h.ledger.submitReceipt(userId: "u1", receiptData: "device-receipt", context: .init(source: "test")).isDuplicate)
            // A receipt created after the refund without a cancellation date: Apple reversed it.
            try await Self.submit(h, "refreshed-receipt", at: 70)
            let refreshed = try #require(try await h.entitlement("pro", of: "u1", at: 71))
            #expect(refreshed.status == "active")
            #expect(refreshed.active)
        }
    }

    /// Without a creation date, a receipt's own entries count from Apple's answer, which each
    /// validation moves on: that time stays out of its identity, so a resend is still a duplicate.
    @Test func aReceiptWithoutACreationDateResentIsADuplicate() async throws {
        try await H.run { h in
            let lifetime = LegacyInAppTransaction(
                quantity: "1", productId: "lifetime.pro", transactionId: "5000", originalTransactionId: "5000",
                purchaseDate: Day.apple(0), originalPurchaseDate: Day.apple(0), isTrialPeriod: LegacyFlag(rawValue: "false")
            )
            for (receipt, day) in [("first-answer", 10.0), ("second-answer", 20.0)] {
                let decoded = LegacyReceipt(bundleId: H.bundleId, requestDate: Day.apple(day), inApp: [lifetime])
                h.receipts.register(VerifyReceiptResponse(status: 0, environment: .sandbox, receipt: decoded), for: receipt)
            }
            h.clock.set(Day.date(10))
            let first = try await h.ledger.submitReceipt(userId: "u1", receiptData: "first-answer", context: .init(source: "test"))
            #expect(!first.isDuplicate)
            h.clock.set(Day.date(20))
            #expect(try await h.ledger.submitReceipt(userId: "u1", receiptData: "second-answer", context: .init(source: "test")).isDuplicate)
        }
    }

    /// Apple removes a subscription from `pending_renewal_info` when the customer turns renewal off
    /// during a grace period; the grace period ends then, in a receipt and in a V1 notification alike.
    @Test(arguments: [false, true])
    func aSubscriptionMissingFromPendingRenewalInfoLeavesItsGracePeriod(_ byNotification: Bool) async throws {
        try await H.run { h in
            _ = try await h.ledger.link(userId: "u1", originalTransactionId: "2000", source: "submit", context: .init(source: "test"))
            Self.answer(h, "in-grace", day: 31, entries: [Self.entry("2000", purchased: 0, expires: 30)], pending: [Self.pending(graceUntil: 36, retry: true)])
            try await Self.submit(h, "in-grace", at: 31)
            #expect(try await h.entitlement("pro", of: "u1", at: 32)?.status == "grace_period")
            if byNotification {
                h.clock.set(Day.date(33))
                let notification = NotificationV1(
                    notificationType: .didChangeRenewalStatus, password: "s3cret", environment: .sandbox, bid: H.bundleId,
                    autoRenewStatus: LegacyFlag(rawValue: "false"),
                    unifiedReceipt: UnifiedReceipt(environment: .sandbox, latestReceiptInfo: [Self.entry("2000", purchased: 0, expires: 30)], pendingRenewalInfo: [], status: 0)
                )
                _ = try await h.ledger.ingestNotificationV1(body: try JSONEncoder().encode(notification), context: .init(source: "test"))
            } else {
                Self.answer(h, "cancelled-in-grace", day: 33, entries: [Self.entry("2000", purchased: 0, expires: 30)], pending: [])
                try await Self.submit(h, "cancelled-in-grace", at: 33)
            }
            let after = try #require(try await h.entitlement("pro", of: "u1", at: 34))
            #expect(after.status == "expired")
            #expect(!after.active && !after.willRenew && after.gracePeriodExpiresAt == nil)
            // The moment before it is unchanged.
            #expect(try await h.entitlement("pro", of: "u1", at: 32)?.status == "grace_period")
        }
    }

    /// Apple: a unified receipt's status is 0 when the notification is valid. Another is refused.
    @Test func aV1NotificationWhoseReceiptIsNotValidIsRefused() async throws {
        try await H.run { h in
            let notification = NotificationV1(
                notificationType: .initialBuy, password: "s3cret", environment: .sandbox, bid: H.bundleId,
                unifiedReceipt: UnifiedReceipt(environment: .sandbox, latestReceiptInfo: [Self.entry("2000", purchased: 0, expires: 30)], status: 21003)
            )
            try await h.expectRefusal(.invalidReceipt) {
                _ = try await h.ledger.ingestNotificationV1(body: try JSONEncoder().encode(notification), context: .init(source: "test"))
            }
        }
    }

    /// A V1 body is not signed: its app_account_token links nobody (a body forged with the shared
    /// secret must not move a chain), and does not use up the token, so a signed notification that
    /// brings it later (an app moving from V1 to V2) claims the chain.
    @Test func aV1NotificationsTokenLinksNobodyAndLeavesTheClaimToASignedOne() async throws {
        try await H.run { h in
            let token = "5e1f6c1a-2b3c-4d5e-8f90-a1b2c3d4e5f6"
            var entry = Self.entry("2000", purchased: 0, expires: 30)
            entry.appAccountToken = token
            h.clock.set(Day.date(0))
            _ = try await h.ledger.ingestNotificationV1(body: try Self.v1Body(.initialBuy, entries: [entry]), context: .init(source: "test"))
            #expect(try await h.ledger.entitlements(userId: token, at: Day.date(1)).subscriptions.isEmpty)
            #expect(try await h.store.eventCount() == 1)
            try await h.notify(.didRenew, transaction: H.transaction("2001", original: "2000", purchased: 1, expires: 31, token: token), at: 1)
            let view = try await h.ledger.entitlements(userId: token, at: Day.date(2))
            #expect(view.subscriptions.map(\.originalTransactionId) == ["2000"])
            #expect(view.entitlements.first?.active == true)
        }
    }

    /// A V1 refund that wins for a transaction (its token left out) must not make the chain forget the
    /// token a signed notification brought: otherwise Apple's next notification with that token (a
    /// reversed refund) would count as the first to bring it and take back the chain a submission moved.
    @Test func aV1RefundDoesNotLetAnOldTokenTakeBackATransferredChain() async throws {
        try await H.run { h in
            let token = "5e1f6c1a-2b3c-4d5e-8f90-a1b2c3d4e5f6"
            let bought = H.transaction("2000", original: "2000", purchased: 0, expires: 30, token: token)
            try await h.notify(.subscribed, transaction: bought, at: 0)
            #expect(try await h.ledger.entitlements(userId: token, at: Day.date(1)).subscriptions.map(\.originalTransactionId) == ["2000"])
            _ = try await h.submit(user: "w1", H.transaction("2000", original: "2000", purchased: 0, expires: 30, signed: 1, token: token), at: 1)
            var refunded = Self.entry("2000", purchased: 0, expires: 30, cancelled: 5)
            refunded.appAccountToken = token
            h.clock.set(Day.date(5))
            _ = try await h.ledger.ingestNotificationV1(body: try Self.v1Body(.refund, entries: [refunded]), context: .init(source: "test"))
            try await h.notify(.refundReversed, transaction: H.transaction("2000", original: "2000", purchased: 0, expires: 30, signed: 6, token: token), at: 6)
            #expect(try await h.ledger.entitlements(userId: "w1", at: Day.date(7)).subscriptions.map(\.originalTransactionId) == ["2000"])
            #expect(try await h.ledger.entitlements(userId: token, at: Day.date(7)).subscriptions.isEmpty)
        }
    }

    /// A receipt answer is a duplicate of the user's latest one only: a state that returns (renewal
    /// off, then on again) is recorded again, and resending it then adds nothing.
    @Test(arguments: TestDatabases.dialects)
    func aReceiptStateThatReturnsIsRecordedAgain(_ dialect: StorageDialect) async throws {
        try await H.run(dialect: dialect) { h in
            let entries = [Self.entry("2000", purchased: 0, expires: 30)]
            Self.answer(h, "on", day: 1, entries: entries, pending: [Self.pending(autoRenew: true)])
            Self.answer(h, "off", day: 2, entries: entries, pending: [Self.pending(autoRenew: false)])
            Self.answer(h, "on-again", day: 3, entries: entries, pending: [Self.pending(autoRenew: true)])
            try await Self.submit(h, "on", at: 1)
            try await Self.submit(h, "on", at: 1.5)
            try await Self.submit(h, "off", at: 2)
            try await Self.submit(h, "on-again", at: 3)
            try await Self.submit(h, "on-again", at: 4)
            let receipts = try await h.store.readStream("user-u1").filter { $0.type == "apple.receipt.validated" }
            #expect(receipts.count == 3)
            #expect(try await h.entitlement("pro", of: "u1", at: 5)?.willRenew == true)
            #expect(try await h.entitlement("pro", of: "u1", at: 2.5)?.willRenew == false)
        }
    }

    /// verifyReceipt's 21004 means the server sent the wrong shared secret: its own configuration,
    /// not the client's receipt.
    @Test func aRejectedSharedSecretIsTheServersError() async throws {
        try await H.run { h in
            Self.answer(h, "any", day: 1, entries: [], pending: nil, status: 21004)
            try await h.expectRefusal(.sharedSecretRejected) { try await Self.submit(h, "any", at: 1) }
        }
    }

    /// Apple checks the shared secret against the receipt's own app, so a 21004 for a receipt of an
    /// app not served here is the client's input (400), named or not, not the server's secret.
    @Test func aRefusedSecretForAReceiptOfAnAppNotServedHereIsUnknownApp() async throws {
        try await H.run { h in
            h.receipts.register(VerifyReceiptResponse(status: 21004), for: try Self.xcodeReceipt())
            try await h.expectRefusal(.unknownApp) { try await Self.submitXcodeReceipt(h, bundleId: nil) }
            try await h.expectRefusal(.unknownApp) { try await Self.submitXcodeReceipt(h, bundleId: H.bundleId) }
        }
    }

    /// A receipt of another configured app sent under this app's name: 21004 to this app's secret
    /// is the mismatch, not the server's configuration.
    @Test func aRefusedSecretForAnotherConfiguredAppsReceiptIsAMismatch() async throws {
        try await Self.runWithTwoApps(otherEnvironments: [.sandbox], other: Self.xcodeReceiptApp) { h in
            h.receipts.register(VerifyReceiptResponse(status: 21004), for: try Self.xcodeReceipt())
            try await h.expectRefusal(.bundleMismatch) { try await Self.submitXcodeReceipt(h, bundleId: H.bundleId) }
            #expect(h.receipts.requests.last?.sharedSecret == "s3cret")
        }
    }

    /// Unnamed, with the apps' secrets differing, the secret of the app the receipt names goes, not
    /// the first app's, so the client need not name it; that secret refused is the server's.
    @Test func anUnnamedReceiptGoesWithTheSecretOfTheAppItNames() async throws {
        try await Self.runWithTwoApps(otherEnvironments: [.sandbox], other: Self.xcodeReceiptApp) { h in
            try await Self.submitAcceptedXcodeReceipt(h)
            #expect(h.receipts.requests.last?.sharedSecret == "other-secret")
            #expect(try await h.chain("2000", at: 2)?.status == .active)
            h.receipts.register(VerifyReceiptResponse(status: 21004), for: try Self.xcodeReceipt())
            try await h.expectRefusal(.sharedSecretRejected) { try await Self.submitXcodeReceipt(h, bundleId: nil) }
        }
    }

    /// A V1 body of an app that is not configured says so, told apart from a configured app that
    /// has no shared secret: the two are different fixes.
    @Test func aV1BodyOfAnUnknownAppIsToldApartFromOneWithoutASecret() async throws {
        let body = #"{"notification_type":"DID_RENEW","password":"s3cret","bid":"BID","environment":"Sandbox","unified_receipt":{"status":0}}"#
        try await H.run { h in
            do {
                _ = try await h.ledger.ingestNotificationV1(body: Data(body.replacingOccurrences(of: "BID", with: "com.other.app").utf8), context: .init(source: "test"))
                Issue.record("an unknown app's V1 body was recorded")
            } catch let error as LedgerError {
                #expect(error.code == .unknownApp)
                #expect(error.message == "bundle id com.other.app is not a configured app")
            }
        }
        try await H.run(sharedSecrets: [:]) { h in
            do {
                _ = try await h.ledger.ingestNotificationV1(body: Data(body.replacingOccurrences(of: "BID", with: H.bundleId).utf8), context: .init(source: "test"))
                Issue.record("a V1 body was recorded without a shared secret to check")
            } catch let error as LedgerError {
                #expect(error.code == .unknownApp)
                #expect(error.message == "no shared secret is configured for bundle id \(H.bundleId) (set shared_secret_env for it)")
            }
        }
    }

    /// A receipt Apple does not accept is refused with what Apple's status means, not its number alone.
    @Test func aReceiptAppleRefusesIsToldWhatItsStatusMeans() async throws {
        try await H.run { h in
            h.receipts.register(VerifyReceiptResponse(status: 21003, environment: .sandbox), for: "forged-receipt")
            do {
                _ = try await h.ledger.submitReceipt(userId: "u1", receiptData: "forged-receipt", context: .init(source: "test"))
                Issue.record("expected invalid_receipt")
            } catch let error as LedgerError {
                #expect(error.code == .invalidReceipt)
                #expect(error.message == "verifyReceipt answered status 21003 (the receipt could not be authenticated: Apple did not issue it, or it was changed)")
            }
            #expect(try await h.store.eventCount() == 0)
        }
    }

    /// An internal data access error (21100 to 21199) Apple marked not retryable reaches the ledger
    /// as an answer (one not so marked is retried, then is 502): it is Apple's failure, answered
    /// `apple_unavailable`, not `invalid_receipt`, which a backend may act on against the user
    /// (legacy walkthrough).
    @Test func anInternalErrorAppleMarkedNotRetryableIsAppleUnavailableNotAnInvalidReceipt() async throws {
        try await H.run { h in
            h.receipts.register(VerifyReceiptResponse(status: 21199, isRetryable: LegacyFlag(rawValue: "false")), for: "receipt")
            do {
                _ = try await h.ledger.submitReceipt(userId: "u1", receiptData: "receipt", context: .init(source: "test"))
                Issue.record("expected apple_unavailable")
            } catch let error as AppStoreError {
                #expect(error.code == .appleUnavailable)
                #expect(error.message.hasPrefix("verifyReceipt answered status 21199 ("), "\(error.message)")
            }
            #expect(try await h.store.eventCount() == 0)
        }
    }

    /// A pre-iOS 7 transaction receipt names neither app nor environment in verifyReceipt's answer,
    /// so it is refused as such before Apple is asked (its answer read as Apple failing, 502).
    @Test func aPreIOS7TransactionReceiptIsRefusedWithoutAskingApple() async throws {
        try await H.run { h in
            let receipt = try AppleSamples.text("mock_signed_data/legacyTransaction")
            do {
                _ = try await h.ledger.submitReceipt(userId: "u1", receiptData: receipt, context: .init(source: "test"))
                Issue.record("expected invalid_receipt")
            } catch let error as LedgerError {
                #expect(error.code == .invalidReceipt)
                #expect(error.message.contains("pre-iOS 7 transaction receipt (transaction 33993399)"), "\(error.message)")
            }
            // Wrapped at 64 characters as clients send it, and one whose purchase-info names no
            // transaction: refused the same way.
            let wrapped = receipt.enumerated().map { $0.offset > 0 && $0.offset % 64 == 0 ? "\n\($0.element)" : "\($0.element)" }.joined()
            try await h.expectRefusal(.invalidReceipt) {
                _ = try await h.ledger.submitReceipt(userId: "u1", receiptData: wrapped, context: .init(source: "test"))
            }
            let unnamed = Data(#"{ "purchase-info" = "\#(Data(#"{ "product-id" = "pro.monthly"; }"#.utf8).base64EncodedString())"; }"#.utf8).base64EncodedString()
            try await h.expectRefusal(.invalidReceipt) {
                _ = try await h.ledger.submitReceipt(userId: "u1", receiptData: unnamed, context: .init(source: "test"))
            }
            #expect(h.receipts.requests.isEmpty)
            #expect(try await h.store.eventCount() == 0)
        }
    }

    /// The receipt's own app's secret refused is still the server's configuration.
    @Test func aRefusedSecretOfTheReceiptsOwnAppIsTheServersError() async throws {
        let app = AppStoreApp(bundleId: Self.xcodeReceiptApp, environments: [.sandbox])
        try await H.run(sharedSecrets: [Self.xcodeReceiptApp: "wrong"], apps: [app]) { h in
            h.receipts.register(VerifyReceiptResponse(status: 21004), for: try Self.xcodeReceipt())
            try await h.expectRefusal(.sharedSecretRejected) { try await Self.submitXcodeReceipt(h, bundleId: nil) }
            try await h.expectRefusal(.sharedSecretRejected) { try await Self.submitXcodeReceipt(h, bundleId: Self.xcodeReceiptApp) }
        }
    }

    /// The receipt event keeps verifyReceipt's answer as the client received it, not re-encoded.
    @Test func aReceiptEventKeepsApplesAnswerAsReceived() async throws {
        try await H.run { h in
            var response = VerifyReceiptResponse(
                status: 0, environment: .sandbox, receipt: LegacyReceipt(bundleId: H.bundleId, requestDate: Day.apple(1)),
                latestReceiptInfo: [Self.entry("2000", purchased: 0, expires: 30)]
            )
            let body = #"{"status":0,"environment":"Sandbox","receipt":{"download_id":7},"latest_receipt_info":[{"purchase_date":"2026-11-25 10:00:00 Etc/GMT"}]}"#
            response.receivedBody = Data(body.utf8)
            h.receipts.register(response, for: "kept")
            try await Self.submit(h, "kept", at: 1)
            let event = try #require(try await h.store.readStream("user-u1").first)
            #expect(try JSONDecoder().decode(AppleFact.self, from: event.data).raw == body)
        }
    }

    /// A body without `notification_type`, or whose top-level environment contradicts its receipt's,
    /// is refused and records nothing.
    @Test(arguments: [
        (nil, LegacyEnvironment.sandbox, LedgerError.Code.malformedBody),
        (NotificationTypeV1.initialBuy, LegacyEnvironment.production, LedgerError.Code.environmentNotAccepted),
    ])
    func aV1BodyThatIsNotConsistentIsRefused(_ type: NotificationTypeV1?, _ receiptEnvironment: LegacyEnvironment, _ code: LedgerError.Code) async throws {
        try await H.run { h in
            let notification = NotificationV1(
                notificationType: type, password: "s3cret", environment: .sandbox, bid: H.bundleId,
                unifiedReceipt: UnifiedReceipt(environment: receiptEnvironment, latestReceiptInfo: [Self.entry("2000", purchased: 0, expires: 30)], status: 0)
            )
            try await h.expectRefusal(code) {
                _ = try await h.ledger.ingestNotificationV1(body: try JSONEncoder().encode(notification), context: .init(source: "test"))
            }
        }
    }

    /// The same receipt answer after a notification about its subscription is a new fact: here Apple
    /// refunded (V2), then reversed the refund, and the receipt validated after says so.
    @Test(arguments: TestDatabases.dialects)
    func aReceiptEqualToTheLatestIsRecordedAfterANotificationAboutItsSubscription(_ dialect: StorageDialect) async throws {
        try await H.run(dialect: dialect) { h in
            let entries = [Self.entry("2000", purchased: 0, expires: 30)]
            Self.answer(h, "r1", day: 1, entries: entries, pending: [Self.pending()])
            Self.answer(h, "r2", day: 5, entries: entries, pending: [Self.pending()])
            try await Self.submit(h, "r1", at: 1)
            try await Self.submit(h, "r1", at: 1.5)
            #expect(try await h.store.readStream("user-u1").filter { $0.type == "apple.receipt.validated" }.count == 1)
            try await h.notify(.refund, transaction: H.transaction("2000", original: "2000", purchased: 0, expires: 30, signed: 3, revoked: 3), at: 3)
            #expect(try await h.entitlement("pro", of: "u1", at: 4)?.status == "refunded")
            try await Self.submit(h, "r2", at: 5)
            #expect(try await h.store.readStream("user-u1").filter { $0.type == "apple.receipt.validated" }.count == 2)
            #expect(try await h.entitlement("pro", of: "u1", at: 6)?.status == "active")
            // Resent with nothing new about the subscription: a duplicate again.
            try await Self.submit(h, "r2", at: 6)
            #expect(try await h.store.readStream("user-u1").filter { $0.type == "apple.receipt.validated" }.count == 2)
        }
    }

    /// An appAccountToken that could not be a user id (control characters, over 256 characters)
    /// names no user the API could address: a signed notification carrying it claims nothing.
    @Test(arguments: ["a\u{1}b", String(repeating: "x", count: 257), "user-7"])
    func aTokenThatCannotBeAUserIdClaimsNothing(_ token: String) async throws {
        try await H.run { h in
            try await h.notify(.subscribed, .initialBuy, transaction: H.transaction("1000", purchased: 0, expires: 30, token: token), at: 0)
            let links = try await h.store.readAll(after: .start, limit: 10).events.filter { $0.type == "user.linked" }
            #expect(links.count == (token == "user-7" ? 1 : 0))
        }
    }

    /// A refused V1 body says what was wrong in words, without the decoder's Swift descriptions.
    @Test(arguments: [
        (#"{"notification_type":"","password":"s3cret","bid":"com.example.app","environment":"Sandbox","unified_receipt":{"status":0}}"#, "no notification_type"),
        (#"{"notification_type":"INITIAL_BUY","password":"s3cret","bid":"com.example.app","unified_receipt":{"status":"zero"}}"#, "unified_receipt.status must be an integer"),
        (#"{"notification_type":"INITIAL_BUY","#, "not valid JSON: the text ends early: expected a field name in double quotes (line 1, column 36)"),
        // Faults in a field the server does not read: the decoder passes them, the kept body may not hold them.
        ("{\"notification_type\":\"DID_RENEW\",\"password\":\"s3cret\",\"bid\":\"com.example.app\",\"note\":\"a\tb\"}",
         "not valid JSON: a control character (0x09) must be escaped inside a string (line 1, column 87)"),
        (#"{"notification_type":"DID_RENEW","password":"s3cret","bid":"com.example.app","note":"\q"}"#,
         "not valid JSON: 'q' cannot follow a backslash (line 1, column 86)"),
        // Of the wrong kind and not JSON: told both.
        (#"[{"bid":"a","bid":"b"}]"#, #"the top level must be an object, and the text is not valid JSON: the field name "bid" is given twice in this object (line 1, column 13)"#),
        ("[1,]", "the top level must be an object, and the text is not valid JSON: a comma cannot come right before ']' (line 1, column 3)"),
        ("[1]", "the top level must be an object"), ("null", "the top level must be an object, not null"),
        // Not JSON is said before a field's fault the decoder's lenient read finds.
        (#"{"notification_type":"INITIAL_BUY","unified_receipt":{"status":"zero"},}"#,
         "not valid JSON: a comma cannot come right before '}' (line 1, column 71)"),
        ("{}", "the body has no bid (the app's bundle id)"),
        (#"{"notification_type":"DID_RENEW","password":"s3cret"}"#, "the body has no bid"),
        (#"{"notification_type":"DID_RENEW","unified_receipt":{"signedPayload":"x"}}"#, "the body has no bid"),
        (#"{"signedPayload":"a.b.c"}"#, "the body is a V2 notification ({\"signedPayload\": ...})"),
    ])
    func aMalformedV1BodyIsDescribedPlainly(_ body: String, _ said: String) async throws {
        try await H.run { h in
            do {
                _ = try await h.ledger.ingestNotificationV1(body: Data(body.utf8), context: .init(source: "test"))
                Issue.record("a malformed V1 body was recorded")
            } catch let error as LedgerError {
                #expect(error.code == .malformedBody)
                #expect(error.message.contains(said), "\(error.message)")
                // Only a V2 body says which version it is, for the HTTP layer to name its endpoint.
                #expect((error.belongsTo == .notificationV2) == said.hasPrefix("the body is a V2"), "\(error.message)")
                #expect(!error.message.contains("Debug") && !error.message.contains("CodingKeys"), "\(error.message)")
            }
            #expect(try await h.store.eventCount() == 0)
        }
    }

    /// Two V1 notifications about one entry are dated alike (its purchase); the one that says more
    /// has happened (a later expiry) wins, whichever arrived first.
    @Test(arguments: [false, true])
    func twoV1NotificationsAboutOneEntryFoldToTheLaterExpiry(_ reversed: Bool) async throws {
        try await H.run { h in
            _ = try await h.ledger.link(userId: "u1", originalTransactionId: "2000", source: "submit", context: .init(source: "test"))
            let bodies = [
                try Self.v1Body(.initialBuy, entries: [Self.entry("2000", purchased: 0, expires: 30)]),
                try Self.v1Body(.didRenew, entries: [Self.entry("2000", purchased: 0, expires: 40)]),
            ]
            for (day, body) in zip([5.0, 10.0], reversed ? bodies.reversed() : bodies) {
                h.clock.set(Day.date(day))
                _ = try await h.ledger.ingestNotificationV1(body: body, context: .init(source: "test"))
            }
            #expect(try await h.entitlement("pro", of: "u1", at: 35)?.expiresAt == Day.date(40))
        }
    }

    /// A receipt whose `pending_renewal_info` is absent says nothing of renewals; an empty one says
    /// none renews. The two are different answers, not duplicates of each other.
    @Test func anAbsentAndAnEmptyPendingRenewalInfoAreDifferentAnswers() async throws {
        try await H.run { h in
            let entries = [Self.entry("2000", purchased: 0, expires: 30)]
            Self.answer(h, "grace", day: 31, entries: entries, pending: [Self.pending(graceUntil: 36, retry: true)])
            Self.answer(h, "absent", day: 32, entries: entries, pending: nil)
            Self.answer(h, "empty", day: 33, entries: entries, pending: [])
            try await Self.submit(h, "grace", at: 31)
            try await Self.submit(h, "absent", at: 32)
            #expect(try await h.entitlement("pro", of: "u1", at: 32.5)?.status == "grace_period")
            try await Self.submit(h, "empty", at: 33)
            #expect(try await h.entitlement("pro", of: "u1", at: 34)?.status == "expired")
        }
    }

    /// A V1 notification reads a missing renewal entry as renewal off only for the subscription it is
    /// about: another subscription its receipt lists keeps its grace period.
    @Test func aV1NotificationEndsOnlyItsOwnSubscriptionsGracePeriod() async throws {
        try await H.run { h in
            _ = try await h.ledger.link(userId: "u1", originalTransactionId: "2000", source: "submit", context: .init(source: "test"))
            var renewing = Self.pending()
            renewing.originalTransactionId = "3000"
            Self.answer(
                h, "grace", day: 31, entries: [Self.entry("3000", original: "3000", purchased: 20, expires: 50), Self.entry("2000", purchased: 0, expires: 30)],
                pending: [Self.pending(graceUntil: 36, retry: true), renewing]
            )
            try await Self.submit(h, "grace", at: 31)
            #expect(try await h.chain("3000", at: 31.5)?.willRenew == true)
            h.clock.set(Day.date(32))
            let notification = NotificationV1(
                notificationType: .didChangeRenewalStatus, password: "s3cret", environment: .sandbox, bid: H.bundleId,
                unifiedReceipt: UnifiedReceipt(
                    environment: .sandbox,
                    latestReceiptInfo: [Self.entry("3000", original: "3000", purchased: 20, expires: 50), Self.entry("2000", purchased: 0, expires: 30)],
                    pendingRenewalInfo: [], status: 0
                )
            )
            _ = try await h.ledger.ingestNotificationV1(body: try JSONEncoder().encode(notification), context: .init(source: "test"))
            #expect(try await h.chain("2000", at: 33)?.status == .gracePeriod)
            #expect(try await h.chain("3000", at: 33)?.willRenew == false)
        }
    }

    /// With several apps, a receipt sent without `bundle_id` that Apple refuses the default secret for
    /// (21004) may be another app's: the client is told to name it.
    @Test func aRefusedDefaultSecretWithSeveralAppsAsksForTheBundleId() async throws {
        try await Self.runWithTwoApps(otherEnvironments: [.production]) { h in
            Self.answer(h, "any", day: 1, entries: [], pending: nil, status: 21004)
            try await h.expectRefusal(.bundleIdRequired) { try await Self.submit(h, "any", at: 1) }
        }
    }

    /// With a verifyReceipt secret of its own configured (the account's primary one, which Apple
    /// takes for every app), an unnamed receipt goes with that secret even when the apps' secrets
    /// differ, and its refusal is the server's configuration: the client is not asked to name the app.
    @Test func withItsOwnSecretVerifyReceiptGetsItForEveryUnnamedReceipt() async throws {
        try await Self.runWithTwoApps(otherEnvironments: [.sandbox], other: Self.xcodeReceiptApp, hasOwnReceiptSecret: true) { h in
            try await Self.submitAcceptedXcodeReceipt(h)
            #expect(h.receipts.requests.map(\.sharedSecret) == [nil])
            #expect(try await h.chain("2000", at: 2)?.status == .active)
            // Named, the app's own secret goes, as without a secret of verifyReceipt's own.
            try await Self.submitXcodeReceipt(h, bundleId: Self.xcodeReceiptApp)
            #expect(h.receipts.requests.last?.sharedSecret == "other-secret")

            Self.answer(h, "any", day: 1, entries: [], pending: nil, status: 21004)
            try await h.expectRefusal(.sharedSecretRejected) { try await Self.submit(h, "any", at: 1) }
            h.receipts.register(VerifyReceiptResponse(status: 21004), for: try Self.xcodeReceipt())
            try await h.expectRefusal(.sharedSecretRejected) { try await Self.submitXcodeReceipt(h, bundleId: nil) }
            #expect(h.receipts.requests.last?.sharedSecret == nil)
        }
    }

    /// A V1 body is proven only by its app's shared secret: one naming another app's subscription
    /// (here with a cancellation) is refused, and that subscription keeps its state.
    @Test func aV1NotificationNamingAnotherAppsSubscriptionIsRefused() async throws {
        try await Self.runWithTwoApps(otherEnvironments: [.sandbox]) { h in
            try await h.submit(user: "u1", H.transaction("2000", original: "2000", purchased: 0, expires: 30), at: 1)
            let forged = NotificationV1(
                notificationType: .cancel, password: "other-secret", environment: .sandbox, bid: Self.otherApp,
                unifiedReceipt: UnifiedReceipt(
                    environment: .sandbox, latestReceiptInfo: [Self.entry("2000", purchased: 0, expires: 30, cancelled: 2)], status: 0
                )
            )
            let before = try await h.store.eventCount()
            h.clock.set(Day.date(3))
            try await h.expectRefusal(.bundleMismatch) {
                _ = try await h.ledger.ingestNotificationV1(body: try JSONEncoder().encode(forged), context: .init(source: "test"))
            }
            #expect(try await h.store.eventCount() == before)
            #expect(try await h.chain("2000", at: 4)?.status == .active)
            // The app's own V1 notification about it is still taken.
            let own = try Self.v1Body(.cancel, entries: [Self.entry("2000", purchased: 0, expires: 30, cancelled: 2)])
            _ = try await h.ledger.ingestNotificationV1(body: own, context: .init(source: "test"))
            #expect(try await h.chain("2000", at: 4)?.status == .refunded)
        }
    }

    /// The same for a V1 body about its own subscription whose `pending_renewal_info` also names
    /// another app's: that entry would switch the other subscription's renewal off.
    @Test func aV1NotificationWithARenewalEntryForAnotherAppsSubscriptionIsRefused() async throws {
        try await Self.runWithTwoApps(otherEnvironments: [.sandbox]) { h in
            try await h.submit(user: "u1", H.transaction("2000", original: "2000", purchased: 0, expires: 30), renewal: H.renewal(original: "2000", autoRenew: true, signed: 1), at: 1)
            #expect(try await h.chain("2000", at: 4)?.willRenew == true)
            let forged = NotificationV1(
                notificationType: .didChangeRenewalStatus, password: "other-secret", environment: .sandbox, bid: Self.otherApp,
                unifiedReceipt: UnifiedReceipt(
                    environment: .sandbox, latestReceiptInfo: [Self.entry("4000", original: "4000", purchased: 0, expires: 30)],
                    pendingRenewalInfo: [Self.pending(autoRenew: false)], status: 0
                )
            )
            let before = try await h.store.eventCount()
            h.clock.set(Day.date(3))
            try await h.expectRefusal(.bundleMismatch) {
                _ = try await h.ledger.ingestNotificationV1(body: try JSONEncoder().encode(forged), context: .init(source: "test"))
            }
            #expect(try await h.store.eventCount() == before)
            #expect(try await h.chain("2000", at: 4)?.willRenew == true)
        }
    }

    /// A user with receipts of two apps sends them in turn: each is a duplicate of that app's latest.
    @Test func receiptsOfTwoAppsInTurnAreDuplicatesOfEachAppsLatest() async throws {
        let other = Self.otherApp
        try await Self.runWithTwoApps(otherEnvironments: [.sandbox]) { h in
            Self.answer(h, "main", day: 1, entries: [Self.entry("2000", purchased: 0, expires: 30)], pending: [Self.pending()])
            h.receipts.register(
                VerifyReceiptResponse(
                    status: 0, environment: .sandbox, receipt: LegacyReceipt(bundleId: other, requestDate: Day.apple(1)),
                    latestReceiptInfo: [Self.entry("4000", original: "4000", purchased: 0, expires: 30)]
                ),
                for: "other"
            )
            for (receipt, day) in [("main", 1.0), ("other", 2.0), ("main", 3.0), ("other", 4.0)] {
                try await Self.submit(h, receipt, at: day)
            }
            #expect(try await h.store.readStream("user-u1").filter { $0.type == "apple.receipt.validated" }.count == 2)
        }
    }
}
