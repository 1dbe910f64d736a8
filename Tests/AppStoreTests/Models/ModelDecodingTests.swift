import AppStore
import Foundation
import Testing

/// Apple's documented JSON shapes decode into the models, tolerating unknown fields and values.
@Suite struct ModelDecodingTests {
    func decode<T: Decodable>(_ type: T.Type, _ file: String) throws -> T {
        try JSONDecoder().decode(T.self, from: Fixture.data("models/\(file).json"))
    }

    /// Every field of Apple's sample signed transaction (`models/signedTransaction.json`) that the
    /// model carries decodes to the fixture's value, in the fixture's order; the two the sample
    /// lacks stay nil, and the ones the model does not carry (`advancedCommerceInfo`,
    /// `billingPlanType`, `commitmentInfo`) are ignored.
    @Test func signedTransactionDecodesEveryDocumentedField() throws {
        let transaction = try decode(JWSTransactionDecodedPayload.self, "signedTransaction")
        #expect(transaction.transactionId == "23456")
        #expect(transaction.originalTransactionId == "12345")
        #expect(transaction.webOrderLineItemId == "34343")
        #expect(transaction.bundleId == "com.example")
        #expect(transaction.productId == "com.example.product")
        #expect(transaction.subscriptionGroupIdentifier == "55555")
        #expect(transaction.purchaseDate == 1_698_148_900_000)
        #expect(transaction.originalPurchaseDate == 1_698_148_800_000)
        #expect(transaction.expiresDate == 1_698_149_000_000)
        #expect(transaction.quantity == 1)
        #expect(transaction.type == .autoRenewableSubscription)
        #expect(transaction.appAccountToken == "7e3fb20b-4cdb-47cc-936d-99d65f608138")
        #expect(transaction.inAppOwnershipType == .purchased)
        #expect(transaction.signedDate == 1_698_148_900_000)
        #expect(transaction.revocationReason == .appIssue)
        #expect(transaction.revocationDate == 1_698_148_950_000)
        #expect(transaction.isUpgraded == true)
        #expect(transaction.offerType == .introductory)
        #expect(transaction.offerIdentifier == "abc.123")
        #expect(transaction.environment == .localTesting)
        #expect(transaction.transactionReason == .purchase)
        #expect(transaction.storefront == "USA")
        #expect(transaction.storefrontId == "143441")
        #expect(transaction.price == 10990)
        #expect(transaction.currency == "USD")
        #expect(transaction.offerDiscountType == .payAsYouGo)
        #expect(transaction.appTransactionId == "71134")
        #expect(transaction.offerPeriod == "P1Y")
        #expect(transaction.revocationType == nil)
        #expect(transaction.revocationPercentage == nil)
        // The whole value too: a field the model gains later, if the fixture carries it, fails here
        // until this test names it.
        let expected = JWSTransactionDecodedPayload(
            originalTransactionId: "12345", transactionId: "23456", webOrderLineItemId: "34343", bundleId: "com.example",
            productId: "com.example.product", subscriptionGroupIdentifier: "55555", purchaseDate: 1_698_148_900_000,
            originalPurchaseDate: 1_698_148_800_000, expiresDate: 1_698_149_000_000, quantity: 1, type: .autoRenewableSubscription,
            appAccountToken: "7e3fb20b-4cdb-47cc-936d-99d65f608138", inAppOwnershipType: .purchased, signedDate: 1_698_148_900_000,
            revocationReason: .appIssue, revocationDate: 1_698_148_950_000, isUpgraded: true, offerType: .introductory,
            offerIdentifier: "abc.123", environment: .localTesting, storefront: "USA", storefrontId: "143441",
            transactionReason: .purchase, currency: "USD", price: 10990, offerDiscountType: .payAsYouGo,
            appTransactionId: "71134", offerPeriod: "P1Y"
        )
        #expect(transaction == expected)
    }

    @Test func revokedTransactionCarriesRevocationTypeAndPercentage() throws {
        let transaction = try decode(JWSTransactionDecodedPayload.self, "signedTransactionWithRevocation")
        #expect(transaction.revocationType == .refundProrated)
        #expect(transaction.revocationPercentage == 50000)
    }

    @Test func renewalInfoDecodes() throws {
        let renewal = try decode(JWSRenewalInfoDecodedPayload.self, "signedRenewalInfo")
        #expect(renewal.expirationIntent == .customerCancelled)
        #expect(renewal.autoRenewStatus == .on)
        #expect(renewal.isInBillingRetryPeriod == true)
        #expect(renewal.priceIncreaseStatus == .customerHasNotResponded)
        #expect(renewal.gracePeriodExpiresDate == 1_698_148_900_000)
        #expect(renewal.offerType == .promotional)
        #expect(renewal.renewalDate == 1_698_148_850_000)
        #expect(renewal.renewalPrice == 9990)
        #expect(renewal.eligibleWinBackOfferIds == ["eligible1", "eligible2"])
    }

    @Test func appTransactionDecodes() throws {
        let app = try decode(AppTransactionDecodedPayload.self, "appTransaction")
        #expect(app.receiptType == .localTesting)
        #expect(app.appAppleId == 531412)
        #expect(app.originalPlatform == .iOS)
        #expect(app.preorderDate == 1_698_148_700_000)
    }

    struct NotificationCase: Sendable, CustomTestStringConvertible {
        let file: String
        let type: NotificationType
        let subtype: NotificationSubtype?
        var testDescription: String { file }
    }

    static let notifications: [NotificationCase] = [
        NotificationCase(file: "signedNotification", type: .subscribed, subtype: .initialBuy),
        NotificationCase(file: "signedSummaryNotification", type: .renewalExtension, subtype: .summary),
        NotificationCase(file: "signedConsumptionRequestNotification", type: .consumptionRequest, subtype: nil),
        NotificationCase(file: "signedExternalPurchaseTokenNotification", type: .externalPurchaseToken, subtype: .unreported),
        NotificationCase(file: "signedExternalPurchaseTokenSandboxNotification", type: .externalPurchaseToken, subtype: .unreported),
        NotificationCase(file: "signedRescindConsentNotification", type: .rescindConsent, subtype: nil),
    ]

    @Test(arguments: notifications)
    func notificationPayloadDecodes(_ expected: NotificationCase) throws {
        let payload = try decode(ResponseBodyV2DecodedPayload.self, expected.file)
        #expect(payload.notificationType == expected.type)
        #expect(payload.subtype == expected.subtype)
        #expect(payload.version == "2.0")
        #expect(payload.signedDate == 1_698_148_900_000)
    }

    @Test func notificationVariantsFillTheirOwnObject() throws {
        #expect(try decode(ResponseBodyV2DecodedPayload.self, "signedNotification").data?.status == .active)
        #expect(try decode(ResponseBodyV2DecodedPayload.self, "signedSummaryNotification").summary?.storefrontCountryCodes == ["CAN", "USA", "MEX"])
        #expect(try decode(ResponseBodyV2DecodedPayload.self, "signedConsumptionRequestNotification").data?.consumptionRequestReason == .unintendedPurchase)
        #expect(try decode(ResponseBodyV2DecodedPayload.self, "signedExternalPurchaseTokenNotification").externalPurchaseToken?.appAppleId == 55555)
        #expect(try decode(ResponseBodyV2DecodedPayload.self, "signedRescindConsentNotification").appData?.signedAppTransactionInfo == "signed_app_transaction_info_value")
    }

    @Test func unknownEnumValuesAreKeptVerbatim() throws {
        let json = #"{"notificationType":"BRAND_NEW_TYPE","subtype":"SOMETHING","data":{"status":9,"environment":"Staging"},"futureField":{"a":1}}"#
        let payload = try JSONDecoder().decode(ResponseBodyV2DecodedPayload.self, from: Data(json.utf8))
        #expect(payload.notificationType?.rawValue == "BRAND_NEW_TYPE")
        #expect(payload.subtype?.rawValue == "SOMETHING")
        #expect(payload.data?.status?.rawValue == 9)
        #expect(payload.data?.environment?.rawValue == "Staging")
    }

    @Test(arguments: [
        ("1697679936049.7297", Int64(1_697_679_936_049)),
        ("1697679936049", 1_697_679_936_049),
        ("-62135769600000", -62_135_769_600_000),
        ("\"1698148900000\"", 1_698_148_900_000),
        ("0.999", 0),
        ("253402300799999", 253_402_300_799_999),                 // the last millisecond of year 9999
        ("-253402300799999", -253_402_300_799_999),
    ])
    func millisecondDatesAreTruncated(json: String, expected: Int64) throws {
        let date = try JSONDecoder().decode(AppStoreDate.self, from: Data(json.utf8))
        #expect(date.millisecondsSince1970 == expected)
    }

    @Test(arguments: ["\"soon\"", "true", "1e300", "{}", "253402300800000", "-253402300800000", "\"9223372036854775000\"", "2.534023008e14"])
    func nonDatesAreRejected(json: String) {
        #expect(throws: DecodingError.self) { _ = try JSONDecoder().decode(AppStoreDate.self, from: Data(json.utf8)) }
    }

    @Test func dateConvertsToAndFromFoundation() {
        let date = AppStoreDate(millisecondsSince1970: 1_698_148_900_123)
        #expect(date.date == Date(timeIntervalSince1970: 1_698_148_900.123))
        #expect(AppStoreDate(date.date) == date)
    }

    @Test func encodedPayloadOmitsAbsentFieldsAndWritesIntegerDates() throws {
        let json = String(decoding: try JSONEncoder().encode(JWSTransactionDecodedPayload(transactionId: "1", purchaseDate: 5)), as: UTF8.self)
        #expect(json.contains("\"purchaseDate\":5"))
        #expect(!json.contains("expiresDate"))
    }

    @Test func v1NotificationBodyDecodes() throws {
        let json = #"""
        {"notification_type":"DID_RENEW","password":"secret","environment":"PROD","bid":"com.example","bvrs":"42",
         "auto_renew_status":"true","auto_renew_product_id":"pro.monthly","auto_renew_status_change_date_ms":"1698148900000",
         "unified_receipt":{"environment":"Production","status":0,"latest_receipt":"MIIT...",
           "latest_receipt_info":[{"quantity":"1","product_id":"pro.monthly","transaction_id":"1001","original_transaction_id":"1000",
             "purchase_date_ms":"1698148900000","expires_date_ms":"1700827300000","is_trial_period":"false","is_in_intro_offer_period":"false",
             "web_order_line_item_id":"77","in_app_ownership_type":"PURCHASED","cancellation_date_ms":"1698150000000","cancellation_reason":"0"}],
           "pending_renewal_info":[{"auto_renew_product_id":"pro.monthly","auto_renew_status":"1","original_transaction_id":"1000",
             "product_id":"pro.monthly","is_in_billing_retry_period":"0","expiration_intent":"1"}]}}
        """#
        let body = try JSONDecoder().decode(NotificationV1.self, from: Data(json.utf8))
        #expect(body.notificationType == .didRenew)
        #expect(body.password == "secret")
        #expect(body.environment == .prod)
        #expect(body.environment?.appStoreEnvironment == .production)
        #expect(body.bid == "com.example")
        #expect(body.autoRenewStatus?.boolValue == true)
        #expect(body.autoRenewStatusChangeDate == 1_698_148_900_000)
        let latest = try #require(body.unifiedReceipt?.latestReceiptInfo?.first)
        #expect(latest.transactionId == "1001")
        #expect(latest.expiresDate == 1_700_827_300_000)
        #expect(latest.isTrialPeriod?.boolValue == false)
        #expect(latest.cancellationDate == 1_698_150_000_000)
        #expect(latest.inAppOwnershipType == .purchased)
        let pending = try #require(body.unifiedReceipt?.pendingRenewalInfo?.first)
        #expect(pending.autoRenewStatus?.boolValue == true)
        #expect(pending.isInBillingRetryPeriod?.boolValue == false)
    }

    @Test func verifyReceiptResponseDecodes() throws {
        let json = #"""
        {"status":0,"environment":"Sandbox","is-retryable":false,
         "receipt":{"receipt_type":"ProductionSandbox","adam_id":0,"app_item_id":0,"bundle_id":"com.example","application_version":"1",
           "receipt_creation_date_ms":"1698148900000","request_date_ms":"1698148901000","original_purchase_date_ms":"1375340400000",
           "in_app":[{"quantity":"1","product_id":"pro.monthly","transaction_id":"1001","original_transaction_id":"1000","purchase_date_ms":"1698148900000"}]},
         "latest_receipt":"MIIT...","latest_receipt_info":[],"pending_renewal_info":[]}
        """#
        let response = try JSONDecoder().decode(VerifyReceiptResponse.self, from: Data(json.utf8))
        #expect(response.status == 0)
        #expect(response.environment == .sandbox)
        #expect(response.isRetryable?.boolValue == false)
        #expect(response.receipt?.bundleId == "com.example")
        #expect(response.receipt?.receiptCreationDate == 1_698_148_900_000)
        #expect(response.receipt?.inApp?.first?.purchaseDate == 1_698_148_900_000)
    }

    @Test func verifyReceiptRequestUsesApplesKeys() throws {
        let json = String(decoding: try JSONEncoder().encode(VerifyReceiptRequest(receiptData: "abc", password: "s", excludeOldTransactions: true)), as: UTF8.self)
        #expect(json.contains("\"receipt-data\":\"abc\""))
        #expect(json.contains("\"exclude-old-transactions\":true"))
        #expect(json.contains("\"password\":\"s\""))
    }

    @Test(arguments: [("\"true\"", true), ("\"1\"", true), ("\"false\"", false), ("\"0\"", false), ("true", true), ("0", false)])
    func legacyFlagsReadEverySpelling(json: String, expected: Bool) throws {
        #expect(try JSONDecoder().decode(LegacyFlag.self, from: Data(json.utf8)).boolValue == expected)
    }
}
