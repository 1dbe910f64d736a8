@testable import AppStore
import Foundation
import Testing

/// The JWS payloads' fast path must give exactly `JSONDecoder`'s value, or leave the text to it.
@Suite("Signed payloads: reading Apple's JSON without JSONDecoder")
struct SignedPayloadScanningTests {
    func reference<Payload: Decodable>(_ type: Payload.Type, _ text: String) -> Payload? {
        try? JSONDecoder().decode(Payload.self, from: Data(text.utf8))
    }

    /// Apple's own samples of the three payloads a subscription notification carries.
    @Test func readsApplesSamplesAsJSONDecoderDoes() throws {
        for file in ["signedNotification", "signedConsumptionRequestNotification"] {
            let text = try Fixture.text("models/\(file).json")
            let scanned = ResponseBodyV2DecodedPayload.scanned(from: Data(text.utf8))
            #expect(scanned != nil, "\(file)")
            #expect(scanned == reference(ResponseBodyV2DecodedPayload.self, text), "\(file)")
        }
        for file in ["signedTransaction", "signedTransactionWithRevocation"] {
            let text = try Fixture.text("models/\(file).json")
            let scanned = JWSTransactionDecodedPayload.scanned(from: Data(text.utf8))
            #expect(scanned != nil, "\(file)")
            #expect(scanned == reference(JWSTransactionDecodedPayload.self, text), "\(file)")
        }
        let renewal = try Fixture.text("models/signedRenewalInfo.json")
        #expect(JWSRenewalInfoDecodedPayload.scanned(from: Data(renewal.utf8)) != nil)
        #expect(JWSRenewalInfoDecodedPayload.scanned(from: Data(renewal.utf8)) == reference(JWSRenewalInfoDecodedPayload.self, renewal))
    }

    /// Notifications with a summary, an external purchase token or app data are `JSONDecoder`'s.
    @Test func leavesOtherNotificationObjectsToJSONDecoder() throws {
        for file in ["signedSummaryNotification", "signedExternalPurchaseTokenNotification"] {
            let text = try Fixture.text("models/\(file).json")
            #expect(ResponseBodyV2DecodedPayload.scanned(from: Data(text.utf8)) == nil, "\(file)")
        }
        let appData = #"{"notificationType":"TEST","appData":\#(try Fixture.text("models/appData.json"))}"#
        #expect(ResponseBodyV2DecodedPayload.scanned(from: Data(appData.utf8)) == nil)
        #expect(reference(ResponseBodyV2DecodedPayload.self, appData)?.appData != nil)
        let text = try Fixture.text("models/signedSummaryNotification.json")
        #expect(reference(ResponseBodyV2DecodedPayload.self, text)?.summary != nil)
    }

    /// Every field set to a distinct value: a field the scanner misses or reads into another shows.
    @Test func readsEveryFieldOfEachPayload() throws {
        let transaction = JWSTransactionDecodedPayload(
            originalTransactionId: "1", transactionId: "2", webOrderLineItemId: "3", bundleId: "com.example.app",
            productId: "pro.monthly", subscriptionGroupIdentifier: "4", purchaseDate: 1_698_148_900_001,
            originalPurchaseDate: 1_698_148_900_002, expiresDate: 1_698_148_900_003, quantity: 5,
            type: .autoRenewableSubscription, appAccountToken: "7e3fb20b-4cdb-47cc-936d-99d65f608138",
            inAppOwnershipType: .familyShared, signedDate: 1_698_148_900_004, revocationReason: RevocationReason(rawValue: 1),
            revocationDate: 1_698_148_900_005, isUpgraded: true, offerType: OfferType(rawValue: 2),
            offerIdentifier: "offer \"quoted\" \\ é 😀", environment: .sandbox, storefront: "USA", storefrontId: "143441",
            transactionReason: TransactionReason(rawValue: "RENEWAL"), currency: "USD", price: -9_223_372_036_854_775_807,
            offerDiscountType: OfferDiscountType(rawValue: "PAY_AS_YOU_GO"), appTransactionId: "6", offerPeriod: "P1M",
            revocationType: RevocationType(rawValue: "REFUND_PRORATED"), revocationPercentage: 50_000
        )
        let renewal = JWSRenewalInfoDecodedPayload(
            expirationIntent: ExpirationIntent(rawValue: 1), originalTransactionId: "1", autoRenewProductId: "pro.yearly",
            productId: "pro.monthly", autoRenewStatus: AutoRenewStatus(rawValue: 1), isInBillingRetryPeriod: false,
            priceIncreaseStatus: PriceIncreaseStatus(rawValue: 0), gracePeriodExpiresDate: 1_698_148_900_001,
            offerType: OfferType(rawValue: 3), offerIdentifier: "win-back", signedDate: 1_698_148_900_002,
            environment: .production, recentSubscriptionStartDate: 1_698_148_900_003, renewalDate: 1_698_148_900_004,
            currency: "EUR", renewalPrice: 4_990, offerDiscountType: OfferDiscountType(rawValue: "FREE_TRIAL"),
            eligibleWinBackOfferIds: ["a", "b\nc"], appAccountToken: "token", appTransactionId: "7", offerPeriod: "P3M"
        )
        let notification = ResponseBodyV2DecodedPayload(
            notificationType: .didRenew, subtype: NotificationSubtype(rawValue: "BILLING_RECOVERY"),
            notificationUUID: "002e14d5-51f5-4503-b5a8-c3a1af68eb20",
            data: NotificationData(
                environment: .sandbox, appAppleId: 1_234_567_890, bundleId: "com.example.app", bundleVersion: "1.2.3",
                signedTransactionInfo: "a.b.c", signedRenewalInfo: "d.e.f", status: SubscriptionStatus(rawValue: 1),
                consumptionRequestReason: ConsumptionRequestReason(rawValue: "UNINTENDED_PURCHASE")
            ),
            version: "2.0", signedDate: 1_698_148_900_005
        )
        for formatting: JSONEncoder.OutputFormatting in [[], [.sortedKeys], [.prettyPrinted, .withoutEscapingSlashes]] {
            let encoder = JSONEncoder()
            encoder.outputFormatting = formatting
            #expect(JWSTransactionDecodedPayload.scanned(from: try encoder.encode(transaction)) == transaction)
            #expect(JWSRenewalInfoDecodedPayload.scanned(from: try encoder.encode(renewal)) == renewal)
            #expect(ResponseBodyV2DecodedPayload.scanned(from: try encoder.encode(notification)) == notification)
        }
    }

    /// Valid JSON in a shape the scanner does not read, and text that is not JSON, go to `JSONDecoder`.
    @Test func leavesUnusualTextToJSONDecoder() {
        let nested = String(repeating: "[", count: 40) + String(repeating: "]", count: 40)
        let texts = [
            #"{"transactionId":"1","transactionId":"2"}"#,   // JSONDecoder keeps the first
            #"{"purchaseDate":null,"purchaseDate":5}"#,
            #"{"quantity":1.0}"#,
            #"{"quantity":1e2}"#,
            #"{"purchaseDate":1697679936049.7297}"#,         // Xcode's fractional milliseconds
            #"{"purchaseDate":"1697679936049"}"#,
            #"{"x":01}"#,                                    // JSONDecoder skips this number; the scanner refuses it
            #"{"x":1.}"#,
            #"{"x":\#(nested)}"#,
            #"{"trans\u0061ctionId":"1"}"#,
            #"{"transactionId":"\ud800"}"#,
            #"{"transactionId":"1"} x"#,
            #"{"transactionId":"1""#,
            #"{"transactionId":"1",}"#,
            #"["transactionId"]"#,
            "",
            #"{"purchaseDate":253402300800000}"#,             // past year 9999: JSONDecoder refuses it too
        ]
        for text in texts {
            #expect(JWSTransactionDecodedPayload.scanned(from: Data(text.utf8)) == nil, "\(text)")
        }
        // Where JSONDecoder reads them, the verifier still gets its value.
        #expect(reference(JWSTransactionDecodedPayload.self, texts[0])?.transactionId == "1")
        #expect(reference(JWSTransactionDecodedPayload.self, texts[2])?.quantity == 1)
        #expect(reference(JWSTransactionDecodedPayload.self, texts[4])?.purchaseDate == 1_697_679_936_049)
        #expect(reference(JWSTransactionDecodedPayload.self, texts[8]) != nil)
        #expect(reference(JWSTransactionDecodedPayload.self, texts[texts.count - 1]) == nil)
        // Repeated keys, unknown ones too, and objects of more keys than the bound go to JSONDecoder.
        #expect(JWSTransactionDecodedPayload.scanned(from: Data(#"{"x":1,"x":2,"quantity":3}"#.utf8)) == nil)
        func withKeys(_ count: Int) -> Data {
            Data(("{" + (0..<(count - 1)).map { #""k\#($0)":0,"# }.joined() + #""quantity":3}"#).utf8)
        }
        #expect(JWSTransactionDecodedPayload.scanned(from: withKeys(JSONScanner.maximumDistinctKeys))?.quantity == 3)
        #expect(JWSTransactionDecodedPayload.scanned(from: withKeys(JSONScanner.maximumDistinctKeys + 1)) == nil)
        #expect(reference(JWSTransactionDecodedPayload.self, String(decoding: withKeys(JSONScanner.maximumDistinctKeys + 1), as: UTF8.self))?.quantity == 3)
        // A key that is not UTF-8 makes JSONDecoder refuse the whole text, so the scanner must too.
        let badKey = Data(Array(#"{"x"#.utf8) + [0xFF] + Array(#"":1,"quantity":2}"#.utf8))
        #expect(JWSTransactionDecodedPayload.scanned(from: badKey) == nil)
        #expect((try? JSONDecoder().decode(JWSTransactionDecodedPayload.self, from: badKey)) == nil)
        // Nesting up to the limit is still read: the object and 31 arrays around a value are 32 levels.
        func nestedQuantity(_ arrays: Int) -> Data {
            Data(#"{"x":\#(String(repeating: "[", count: arrays))1\#(String(repeating: "]", count: arrays)),"quantity":2}"#.utf8)
        }
        #expect(JWSTransactionDecodedPayload.scanned(from: nestedQuantity(JSONScanner.maximumDepth - 1))?.quantity == 2)
        #expect(JWSTransactionDecodedPayload.scanned(from: nestedQuantity(JSONScanner.maximumDepth)) == nil)
    }

    /// Thousands of generated texts: known keys with right and wrong kinds of value, unknown keys
    /// with nested values, repeats, whitespace and escapes. Whenever the scanner answers, it agrees.
    @Test func agreesWithJSONDecoderOnGeneratedTexts() {
        var generator = PayloadTextGenerator(seed: 0x5EED)
        var scannedCount = 0, renewalsScanned = 0, notificationsScanned = 0
        let rounds = 4_000
        for _ in 0..<rounds {
            let text = generator.object(depth: 0)
            let data = Data(text.utf8)
            if let scanned = JWSTransactionDecodedPayload.scanned(from: data) {
                scannedCount += 1
                #expect(scanned == reference(JWSTransactionDecodedPayload.self, text), "\(text)")
            }
            if let scanned = JWSRenewalInfoDecodedPayload.scanned(from: data) {
                renewalsScanned += 1
                #expect(scanned == reference(JWSRenewalInfoDecodedPayload.self, text), "\(text)")
            }
            if let scanned = ResponseBodyV2DecodedPayload.scanned(from: data) {
                notificationsScanned += 1
                #expect(scanned == reference(ResponseBodyV2DecodedPayload.self, text), "\(text)")
            }
        }
        // Both paths are exercised: most texts are read by the scanner, some are left to JSONDecoder.
        #expect(scannedCount > rounds / 4)
        #expect(scannedCount < rounds)
        // The other two scanners answer too, or their agreement was never checked.
        #expect(renewalsScanned > 0 && renewalsScanned < rounds, "\(renewalsScanned)")
        #expect(notificationsScanned > 0 && notificationsScanned < rounds, "\(notificationsScanned)")
    }
}

/// Random JSON objects over the payloads' keys, from a fixed seed (SplitMix64) so failures repeat.
struct PayloadTextGenerator {
    private var state: UInt64

    init(seed: UInt64) {
        self.state = seed
    }

    private mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var value = state
        value = (value ^ (value >> 30)) &* 0xBF58_476D_1CE4_E5B9
        value = (value ^ (value >> 27)) &* 0x94D0_49BB_1331_11EB
        return value ^ (value >> 31)
    }

    private mutating func pick<T>(_ choices: [T]) -> T {
        choices[Int(next() % UInt64(choices.count))]
    }

    private mutating func chance(_ percent: UInt64) -> Bool {
        next() % 100 < percent
    }

    static let stringKeys = [
        "originalTransactionId", "transactionId", "webOrderLineItemId", "subscriptionGroupIdentifier", "storefrontId",
        "appTransactionId", "offerPeriod", "bundleId", "productId", "appAccountToken", "environment", "type",
        "inAppOwnershipType", "currency", "storefront", "offerIdentifier", "autoRenewProductId", "notificationType",
        "subtype", "notificationUUID", "version", "transactionReason", "revocationType", "offerDiscountType",
    ]
    static let integerKeys = [
        "purchaseDate", "expiresDate", "signedDate", "originalPurchaseDate", "revocationDate", "renewalDate",
        "recentSubscriptionStartDate", "priceIncreaseStatus", "quantity", "price", "revocationReason", "offerType",
        "autoRenewStatus", "expirationIntent", "renewalPrice", "gracePeriodExpiresDate", "revocationPercentage",
    ]
    static let boolKeys = ["isUpgraded", "isInBillingRetryPeriod"]
    static let dataKeys = [
        "environment", "appAppleId", "bundleId", "bundleVersion", "signedTransactionInfo", "signedRenewalInfo", "status",
        "consumptionRequestReason",
    ]

    mutating func whitespace() -> String {
        chance(80) ? "" : pick([" ", "\n", "\t", "\r\n  "])
    }

    mutating func string() -> String {
        pick([#""1""#, #""Sandbox""#, #""com.example.app""#, #""""#, #""tab\there""#, #""\u00e9\ud83d\ude00""#,
              #""quote\"slash\/""#, "\"é\"", #""\ud800""#, "\"\u{7f}\""])
    }

    mutating func integer() -> String {
        pick(["0", "-0", "1", "1698148900000", "-1", "9223372036854775807", "-9223372036854775808",
              "9223372036854775808", "1.0", "1.5", "1e3", "2147483648"])
    }

    mutating func anyValue(depth: Int) -> String {
        switch next() % (depth < 3 ? 8 : 6) {
        case 0: return string()
        case 1: return integer()
        case 2: return pick(["true", "false"])
        case 3: return "null"
        case 4: return pick(["01", "1.", "-", ".5", "1e", "+1"])
        case 5: return pick(["[]", "{}", "[1,2]"])
        case 6: return "[" + (0..<Int(next() % 3)).map { _ in anyValue(depth: depth + 1) }.joined(separator: ",") + "]"
        default: return object(depth: depth + 1)
        }
    }

    /// A value for a known key: usually of its kind, sometimes of another.
    mutating func value(forKey key: String, depth: Int) -> String {
        if chance(10) { return "null" }
        if chance(8) { return anyValue(depth: depth) }
        if Self.stringKeys.contains(key) { return string() }
        if Self.integerKeys.contains(key) { return integer() }
        if Self.boolKeys.contains(key) { return pick(["true", "false"]) }
        if key == "eligibleWinBackOfferIds" { return "[" + (0..<Int(next() % 3)).map { _ in string() }.joined(separator: ",") + "]" }
        if key == "data" { return dataObject() }
        return anyValue(depth: depth)
    }

    mutating func dataObject() -> String {
        let fields = (0..<Int(next() % 5)).map { _ -> String in
            let key = pick(Self.dataKeys)
            let value = key == "appAppleId" || key == "status" ? integer() : string()
            return "\"\(key)\":\(chance(10) ? "null" : value)"
        }
        return "{" + fields.joined(separator: ",") + "}"
    }

    mutating func object(depth: Int) -> String {
        let keys = Self.stringKeys + Self.integerKeys + Self.boolKeys + ["eligibleWinBackOfferIds", "data", "summary", "unknown", "other"]
        let fields = (0..<Int(next() % 8)).map { _ -> String in
            let key = pick(keys)
            return whitespace() + "\"\(key)\"" + whitespace() + ":" + whitespace() + value(forKey: key, depth: depth) + whitespace()
        }
        return whitespace() + "{" + fields.joined(separator: ",") + "}" + whitespace()
    }
}
