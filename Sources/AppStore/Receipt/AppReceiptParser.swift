import Foundation
import SwiftASN1

/// Parses base64 legacy app receipts: PKCS#7 `signedData` (BER, with the indefinite lengths Xcode
/// writes) wrapping a SET of receipt attributes.
///
/// Offline and unauthenticated by design: the result feeds lookups, never entitlements. Inputs that
/// are not receipts get a precise code: `empty_receipt`, `not_a_receipt` (a JWS pasted by
/// mistake, random bytes, another PKCS#7 type) or `malformed_receipt` (a PKCS#7 envelope whose
/// payload is not a receipt attribute set).
public enum AppReceiptParser {
    /// The largest base64 receipt accepted (receipts with years of renewals stay well below).
    /// - Why: bounds memory and time spent on unauthenticated input.
    public static let maximumBase64Length = 4 * 1024 * 1024

    private static let signedDataOID: ASN1ObjectIdentifier = [1, 2, 840, 113549, 1, 7, 2]
    private static let dataOID: ASN1ObjectIdentifier = [1, 2, 840, 113549, 1, 7, 1]
    private static let contextZero = ASN1Identifier(tagWithNumber: 0, tagClass: .contextSpecific)

    /// Parses a base64 receipt (whitespace and line breaks are ignored).
    /// - Why: the form apps send (`receipt-data`).
    public static func parse(base64: String) throws -> AppReceipt {
        guard base64.utf8.count <= maximumBase64Length else {
            throw AppStoreError(.inputTooLarge, "receipt is \(base64.utf8.count) bytes of base64, the maximum is \(maximumBase64Length)")
        }
        let compact = String(base64.unicodeScalars.filter { !CharacterSet.whitespacesAndNewlines.contains($0) })
        guard !compact.isEmpty else {
            throw AppStoreError(.emptyReceipt, "receipt is empty")
        }
        if compact.hasPrefix("eyJ"), compact.split(separator: ".", omittingEmptySubsequences: false).count == 3 {
            throw AppStoreError(.notAReceipt, "input is a JWS, not an app receipt; verify it with SignedDataVerifier")
        }
        guard let bytes = Base64.decode(compact) else {
            throw AppStoreError(.notAReceipt, "receipt is not base64")
        }
        return try parse(der: bytes)
    }

    /// Parses the decoded bytes of a receipt.
    /// - Why: for receipts read from a file rather than received as base64.
    public static func parse(der bytes: [UInt8]) throws -> AppReceipt {
        guard !bytes.isEmpty else {
            throw AppStoreError(.emptyReceipt, "receipt is empty")
        }
        let payload = try receiptPayload(of: bytes)
        let attributes: ASN1Node
        do {
            attributes = try BER.parse(payload)
        } catch {
            throw AppStoreError(.malformedReceipt, "receipt payload is not ASN.1: \(LibraryErrorText.describe(error))")
        }
        guard attributes.identifier == .set, case .constructed(let nodes) = attributes.content else {
            throw AppStoreError(.malformedReceipt, "receipt payload is not a SET of attributes")
        }
        var receipt = AppReceipt()
        for (type, value) in try Self.attributes(nodes) {
            switch type {
            case 0: receipt.receiptType = string(value)
            case 2: receipt.bundleId = string(value)
            case 3: receipt.applicationVersion = string(value)
            case 12: receipt.creationDate = date(value)
            case 17: receipt.inAppPurchases.append(try inAppPurchase(value))
            case 19: receipt.originalApplicationVersion = string(value)
            case 21: receipt.expirationDate = date(value)
            default: continue
            }
        }
        return receipt
    }

    /// Unwraps ContentInfo → SignedData → encapContentInfo → eContent and returns the eContent octets.
    private static func receiptPayload(of bytes: [UInt8]) throws -> [UInt8] {
        let root: ASN1Node
        do {
            root = try BER.parse(bytes)
        } catch {
            throw AppStoreError(.notAReceipt, "input is not ASN.1 BER (not a PKCS#7 receipt)")
        }
        guard root.identifier == .sequence, case .constructed(let contentInfo) = root.content else {
            throw AppStoreError(.notAReceipt, "input is not a PKCS#7 ContentInfo")
        }
        var contentInfoItems = contentInfo.makeIterator()
        guard let typeNode = contentInfoItems.next(),
            let contentType = try? ASN1ObjectIdentifier(berEncoded: typeNode), contentType == signedDataOID
        else {
            throw AppStoreError(.notAReceipt, "input is not PKCS#7 signedData")
        }
        guard let explicit = contentInfoItems.next(), explicit.identifier == contextZero,
            case .constructed(let explicitContent) = explicit.content,
            let signedData = explicitContent.first(where: { _ in true }),
            signedData.identifier == .sequence, case .constructed(let signedDataItems) = signedData.content
        else {
            throw AppStoreError(.malformedReceipt, "PKCS#7 signedData has no content")
        }
        // SignedData ::= SEQUENCE { version, digestAlgorithms SET, encapContentInfo SEQUENCE, ... }
        let items = Array(signedDataItems)
        guard items.count >= 3, items[2].identifier == .sequence, case .constructed(let encapsulated) = items[2].content else {
            throw AppStoreError(.malformedReceipt, "PKCS#7 signedData has no encapsulated content")
        }
        let encapsulatedItems = Array(encapsulated)
        guard let eContentType = encapsulatedItems.first.flatMap({ try? ASN1ObjectIdentifier(berEncoded: $0) }), eContentType == dataOID else {
            throw AppStoreError(.malformedReceipt, "PKCS#7 content is not of type data")
        }
        guard encapsulatedItems.count >= 2, encapsulatedItems[1].identifier == contextZero,
            case .constructed(let wrapped) = encapsulatedItems[1].content,
            let octets = wrapped.first(where: { _ in true }),
            let payload = octetStringBytes(octets)
        else {
            throw AppStoreError(.malformedReceipt, "PKCS#7 data has no receipt payload")
        }
        return payload
    }

    /// The bytes of an OCTET STRING, concatenating the segments of a BER constructed one.
    private static func octetStringBytes(_ node: ASN1Node) -> [UInt8]? {
        guard node.identifier == .octetString else { return nil }
        switch node.content {
        case .primitive(let bytes):
            return Array(bytes)
        case .constructed(let segments):
            var output = [UInt8]()
            for segment in segments {
                guard let bytes = octetStringBytes(segment) else { return nil }
                output.append(contentsOf: bytes)
            }
            return output
        }
    }

    /// Reads `ReceiptAttribute ::= SEQUENCE { type INTEGER, version INTEGER, value OCTET STRING }` entries.
    private static func attributes(_ nodes: ASN1NodeCollection) throws -> [(Int, [UInt8])] {
        try nodes.map { node in
            guard node.identifier == .sequence, case .constructed(let fields) = node.content else {
                throw AppStoreError(.malformedReceipt, "receipt attribute is not a SEQUENCE")
            }
            let items = Array(fields)
            guard items.count == 3, items[0].identifier == .integer, case .primitive(let typeBytes) = items[0].content,
                let type = integer(typeBytes), let value = octetStringBytes(items[2])
            else {
                throw AppStoreError(.malformedReceipt, "receipt attribute is not (type, version, value)")
            }
            return (Int(type), value)
        }
    }

    private static func inAppPurchase(_ value: [UInt8]) throws -> AppReceiptInAppPurchase {
        let node: ASN1Node
        do {
            node = try BER.parse(value)
        } catch {
            throw AppStoreError(.malformedReceipt, "in-app attribute is not ASN.1: \(LibraryErrorText.describe(error))")
        }
        guard node.identifier == .set, case .constructed(let nodes) = node.content else {
            throw AppStoreError(.malformedReceipt, "in-app attribute is not a SET")
        }
        var purchase = AppReceiptInAppPurchase()
        for (type, value) in try attributes(nodes) {
            switch type {
            case 1701: purchase.quantity = integerValue(value).map { Int($0) }
            case 1702: purchase.productId = string(value)
            case 1703: purchase.transactionId = string(value)
            case 1704: purchase.purchaseDate = date(value)
            case 1705: purchase.originalTransactionId = string(value)
            case 1706: purchase.originalPurchaseDate = date(value)
            case 1708: purchase.expiresDate = date(value)
            case 1711: purchase.webOrderLineItemId = integerValue(value)
            case 1712: purchase.cancellationDate = date(value)
            case 1719: purchase.isInIntroOfferPeriod = integerValue(value).map { $0 != 0 }
            default: continue
            }
        }
        return purchase
    }

    /// A UTF8String / IA5String wrapped in the attribute's OCTET STRING.
    private static func string(_ value: [UInt8]) -> String? {
        guard let node = try? BER.parse(value), case .primitive(let bytes) = node.content,
            node.identifier == .utf8String || node.identifier == .ia5String || node.identifier == .printableString
        else { return nil }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// An INTEGER wrapped in the attribute's OCTET STRING.
    private static func integerValue(_ value: [UInt8]) -> Int64? {
        guard let node = try? BER.parse(value), node.identifier == .integer, case .primitive(let bytes) = node.content else {
            return nil
        }
        return integer(bytes)
    }

    /// An RFC 3339 date (IA5String); Apple writes an empty string for "no date".
    private static func date(_ value: [UInt8]) -> Date? {
        guard let text = string(value), !text.isEmpty else { return nil }
        if let date = try? Date.ISO8601FormatStyle().parse(text) {
            return date
        }
        return try? Date.ISO8601FormatStyle(includingFractionalSeconds: true).parse(text)
    }

    /// A two's complement big-endian integer of at most 8 bytes.
    private static func integer(_ bytes: ArraySlice<UInt8>) -> Int64? {
        guard !bytes.isEmpty, bytes.count <= 8 else { return nil }
        var value: Int64 = (bytes.first ?? 0) & 0x80 != 0 ? -1 : 0
        for byte in bytes {
            value = (value << 8) | Int64(byte)
        }
        return value
    }
}
