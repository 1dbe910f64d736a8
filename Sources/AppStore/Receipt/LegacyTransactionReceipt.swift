import Foundation

/// Reads the pre-iOS 7 transaction receipt (`SKPaymentTransaction.transactionReceipt`): base64 of an
/// old-style plist `{ "purchase-info" = "<base64>"; ... }` whose purchase-info is another such plist.
///
/// Some very old clients still send these; the only useful content is the transaction id, which
/// is then looked up through a verified channel.
public enum LegacyTransactionReceipt {
    /// The `transaction-id` inside the receipt's `purchase-info`, or `nil` if it has none
    /// (whitespace and line breaks in the base64 are ignored, as clients wrap it).
    /// - Why: turns an ancient receipt into a transaction id to look up.
    public static func transactionId(fromBase64 receipt: String) throws -> String? {
        let compact = String(receipt.unicodeScalars.filter { !CharacterSet.whitespacesAndNewlines.contains($0) })
        guard !compact.isEmpty else {
            throw AppStoreError(.emptyReceipt, "transaction receipt is empty")
        }
        // The plist begins with `{`, whose base64 begins with `e`: anything else (an app receipt,
        // `MI...`) is told apart without decoding it whole.
        guard compact.hasPrefix("e") else {
            throw AppStoreError(.notAReceipt, "transaction receipt is not an old-style property list")
        }
        guard let outer = Base64.decode(compact) else {
            throw AppStoreError(.notAReceipt, "transaction receipt is not base64")
        }
        guard let purchaseInfo = value(of: "purchase-info", in: String(decoding: outer, as: UTF8.self)) else {
            throw AppStoreError(.notAReceipt, "transaction receipt has no purchase-info")
        }
        guard let inner = Base64.decode(purchaseInfo) else {
            throw AppStoreError(.malformedReceipt, "purchase-info is not base64")
        }
        return value(of: "transaction-id", in: String(decoding: inner, as: UTF8.self))
    }

    /// Finds `"key" = "value";` in an old-style plist text.
    private static func value(of key: String, in text: String) -> String? {
        guard let keyRange = text.range(of: "\"\(key)\"") else { return nil }
        var rest = text[keyRange.upperBound...].drop(while: { $0 == " " || $0 == "\t" || $0 == "\n" })
        guard rest.first == "=" else { return nil }
        rest = rest.dropFirst().drop(while: { $0 == " " || $0 == "\t" || $0 == "\n" })
        guard rest.first == "\"" else { return nil }
        rest = rest.dropFirst()
        guard let end = rest.firstIndex(of: "\"") else { return nil }
        return String(rest[..<end])
    }
}
