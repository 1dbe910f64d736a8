import AppStore
import Foundation
import Testing

/// Legacy PKCS#7 app receipts as Xcode writes them (BER, indefinite lengths).
@Suite struct AppReceiptParserTests {
    @Test func xcodeReceiptWithATransactionYieldsItsEntries() throws {
        let receipt = try AppReceiptParser.parse(base64: Fixture.text("xcode/xcode-app-receipt-with-transaction"))
        #expect(receipt.receiptType == "Xcode")
        #expect(receipt.bundleId == "com.example.naturelab.backyardbirds.example")
        #expect(receipt.applicationVersion == "1")
        #expect(receipt.creationDate == Date(timeIntervalSince1970: 1_697_679_940))
        #expect(receipt.inAppPurchases.count == 1)
        let purchase = try #require(receipt.inAppPurchases.first)
        #expect(purchase.transactionId == "0")
        #expect(purchase.productId == "pass.premium")
        #expect(purchase.quantity == 1)
        #expect(purchase.purchaseDate == Date(timeIntervalSince1970: 1_697_679_936))
        #expect(purchase.expiresDate == Date(timeIntervalSince1970: 1_700_358_336))
        #expect(purchase.isInIntroOfferPeriod == true)
    }

    @Test func xcodeReceiptWithoutTransactionsHasNoEntries() throws {
        let receipt = try AppReceiptParser.parse(base64: Fixture.text("xcode/xcode-app-receipt-empty"))
        #expect(receipt.bundleId == "com.example.naturelab.backyardbirds.example")
        #expect(receipt.inAppPurchases.isEmpty)
    }

    @Test func lineBreaksInTheBase64AreIgnored() throws {
        let text = try Fixture.text("xcode/xcode-app-receipt-with-transaction")
        var wrapped = ""
        for (index, character) in text.enumerated() {
            if index > 0, index % 64 == 0 { wrapped += "\r\n" }
            wrapped.append(character)
        }
        #expect(try AppReceiptParser.parse(base64: wrapped).inAppPurchases.first?.transactionId == "0")
    }

    struct BadInput: Sendable, CustomTestStringConvertible {
        let name: String
        let code: String
        let text: @Sendable () throws -> String
        var testDescription: String { name }
    }

    static let badInputs: [BadInput] = [
        BadInput(name: "empty string", code: "empty_receipt") { "" },
        BadInput(name: "only whitespace", code: "empty_receipt") { "  \n " },
        BadInput(name: "a JWS pasted by mistake", code: "not_a_receipt") { try Fixture.text("mock_signed_data/transactionInfo") },
        BadInput(name: "not base64", code: "not_a_receipt") { "this is not base64!" },
        BadInput(name: "random bytes", code: "not_a_receipt") { Data((0..<512).map { UInt8(truncatingIfNeeded: $0 &* 131 &+ 7) }).base64EncodedString() },
        BadInput(name: "a DER certificate", code: "not_a_receipt") { try Fixture.data("certs/AppleRootCA-G3.cer").base64EncodedString() },
        BadInput(name: "a legacy transaction receipt", code: "not_a_receipt") { try Fixture.text("mock_signed_data/legacyTransaction") },
        BadInput(name: "a truncated receipt", code: "not_a_receipt") { String(try Fixture.text("xcode/xcode-app-receipt-with-transaction").prefix(400)) },
        BadInput(name: "oversized input", code: "input_too_large") { String(repeating: "A", count: AppReceiptParser.maximumBase64Length + 4) },
    ]

    @Test(arguments: badInputs)
    func nonReceiptIsRejected(_ input: BadInput) throws {
        let text = try input.text()
        #expect {
            _ = try AppReceiptParser.parse(base64: text)
        } throws: { error in
            (error as? AppStoreError)?.code.rawValue == input.code
        }
    }

    @Test func emptyDERIsAnEmptyReceipt() {
        #expect { _ = try AppReceiptParser.parse(der: []) } throws: { ($0 as? AppStoreError)?.code == .emptyReceipt }
    }

    @Test func legacyTransactionReceiptWithoutPurchaseInfoIsNotAReceipt() {
        let text = Data("{ \"signature\" = \"x\"; }".utf8).base64EncodedString()
        #expect { _ = try LegacyTransactionReceipt.transactionId(fromBase64: text) } throws: { ($0 as? AppStoreError)?.code == .notAReceipt }
    }

    /// An app receipt is not taken for a transaction receipt (it is told apart by its first bytes).
    @Test func anAppReceiptIsNotATransactionReceipt() throws {
        let receipt = try Fixture.text("xcode/xcode-app-receipt-with-transaction")
        #expect { _ = try LegacyTransactionReceipt.transactionId(fromBase64: receipt) } throws: { error in
            (error as? AppStoreError)?.code == .notAReceipt && "\(error)".contains("not an old-style property list")
        }
    }
}
