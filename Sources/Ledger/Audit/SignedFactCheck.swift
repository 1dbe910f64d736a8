import AppStore
import EventStore
import Foundation

/// Checks a recorded signed fact against the text Apple signed: the recorded text is verified
/// again and its fact rebuilt as ingestion built it, and the decoded fields the fold reads must be
/// the ones recorded.
///
/// A stream's hash chain is plain SHA-256, so whoever can write the database can change an event
/// and compute its hashes again, and the chain holds. Apple's signature cannot be made again: a
/// decoded field changed (an expiry moved, a refund dropped) no longer matches the signed text,
/// which is what this finds. It covers V2 notifications and StoreKit 2 submissions; V1
/// notifications and verifyReceipt answers are not signed, and links and grants are the ledger's own.
public struct SignedFactCheck: Sendable {
    /// What one event's check found.
    public enum Outcome: Sendable, Hashable {
        /// The event is not a signed fact.
        case notSigned
        /// The recorded fields are the ones the signed text gives.
        case matches
        /// The check could not be made, for a reason that says nothing of the event (an app no
        /// longer configured, data not signed by Apple); the reason.
        case unchecked(String)
        /// The signed text gives other fields than those recorded, or is not a signed fact this
        /// build reads; what differs.
        case differs(String)
        /// The recorded text no longer verifies: the verifier's code (nil for an error that has
        /// none) and its message. `untrustedChain` also comes from a root the check does not trust.
        case doesNotVerify(AppStoreError.Code?, String)
    }

    let verifier: SignedDataVerifier

    /// Creates a check with the verifier of the apps and roots the events were recorded under.
    public init(verifier: SignedDataVerifier) {
        self.verifier = verifier
    }

    /// Checks one event.
    public func check(_ event: RecordedEvent) async -> Outcome {
        guard event.type == LedgerEventType.notificationV2 || event.type == LedgerEventType.transaction else {
            return Self.signedUnderAnotherType(event).map { .differs($0) } ?? .notSigned
        }
        guard let recorded = try? JSONDecoder().decode(AppleFact.self, fromUntrusted: event.data) else {
            return .differs("its data is not a fact this build reads")
        }
        // Rebuilt at the moment it was received, as ingestion did (the fallback of a missing date).
        let receivedAt = Self.metadata(event).map { Timestamp.date(micros: $0.receivedAt * 1000) } ?? event.recordedAt
        let rebuilt: AppleFact
        do {
            if event.type == LedgerEventType.notificationV2 {
                let verified = try await verifier.verifyNotificationBody(Data(recorded.raw.utf8), now: receivedAt)
                guard verified.notification.facts.isSignatureVerified else { return .unchecked("not signed by Apple (a local test environment)") }
                rebuilt = SubscriptionLedger.notificationFact(body: Data(recorded.raw.utf8), verified: verified, now: receivedAt)
            } else {
                let parts = recorded.raw.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
                guard (1...2).contains(parts.count) else { return .differs("its text is not a transaction JWS with at most one renewal info JWS") }
                let transaction = try await verifier.verifyTransaction(parts[0], now: receivedAt)
                guard transaction.facts.isSignatureVerified else { return .unchecked("not signed by Apple (a local test environment)") }
                guard let observation = SubscriptionLedger.transactionObservation(transaction, now: receivedAt) else {
                    return .differs("its signed transaction lacks a transaction id, product id or purchase date")
                }
                let renewal = parts.count == 2 ? try await verifier.verifyRenewalInfo(parts[1], bundleId: transaction.payload.bundleId, now: receivedAt) : nil
                rebuilt = SubscriptionLedger.transactionFact(
                    userId: recorded.userId ?? "", signedTransaction: parts[0], signedRenewalInfo: parts.count == 2 ? parts[1] : nil,
                    transaction: observation, bundleId: transaction.payload.bundleId, renewal: renewal, now: receivedAt
                )
            }
        } catch let error as AppStoreError {
            switch error.code {
            case .unknownApp, .environmentNotAccepted, .appAppleIdMismatch:
                // The configuration the audit runs with, not the event.
                return .unchecked("\(error.code.rawValue): \(error.message)")
            default:
                return .doesNotVerify(error.code, error.message)
            }
        } catch {
            return .doesNotVerify(nil, "\(error)")
        }
        if rebuilt == recorded { return .matches }
        return .differs(Self.differences(recorded: recorded, signed: rebuilt))
    }

    /// Why an event of a type that is not signed looks like a signed fact whose type was changed
    /// (which takes it out of this check), or nil: its metadata records a signature check, or, for
    /// a V1 notification, its text is a V2 body. A fact forged from nothing, or deleted, is not
    /// found here: only an audit against a checkpoint kept elsewhere shows that.
    static func signedUnderAnotherType(_ event: RecordedEvent) -> String? {
        if metadata(event)?.verification != nil {
            return "its metadata records a signature check (verification), which no \(event.type) event has: a signed fact's type was changed"
        }
        guard event.type == LedgerEventType.notificationV1,
              let fact = try? JSONDecoder().decode(AppleFact.self, fromUntrusted: event.data),
              SubscriptionLedger.input(Data(fact.raw.utf8)) == .notificationV2 else { return nil }
        return "its text is a V2 notification body ({\"signedPayload\": ...}), not a V1 one: a signed fact's type was changed"
    }

    /// The event's metadata as ingestion wrote it, or nil for one it cannot read.
    static func metadata(_ event: RecordedEvent) -> EventMetadata? {
        try? JSONDecoder().decode(EventMetadata.self, fromUntrusted: event.metadata)
    }

    /// The fields that differ, up to three, as `transactions[0].expiresDate is 2113809059363, the
    /// signed text gives 1798449059363`.
    static func differences(recorded: AppleFact, signed: AppleFact) -> String {
        let encoder = JSONEncoder()
        guard let left = (try? encoder.encode(recorded)).flatMap({ try? JSONSerialization.jsonObject(with: $0) }),
              let right = (try? encoder.encode(signed)).flatMap({ try? JSONSerialization.jsonObject(with: $0) }) else {
            return "its fields are not those the signed text gives"
        }
        var found: [String] = []
        collect(left, right, path: "", into: &found)
        guard !found.isEmpty else { return "its fields are not those the signed text gives" }
        let more = found.count > 3 ? " (and \(found.count - 3) more)" : ""
        return found.prefix(3).joined(separator: "; ") + more
    }

    private static func collect(_ recorded: Any?, _ signed: Any?, path: String, into found: inout [String]) {
        switch (recorded, signed) {
        case let (left as [String: Any], right as [String: Any]):
            for key in Set(left.keys).union(right.keys).sorted() {
                collect(left[key], right[key], path: path.isEmpty ? key : "\(path).\(key)", into: &found)
            }
        case let (left as [Any], right as [Any]) where left.count == right.count:
            for index in left.indices {
                collect(left[index], right[index], path: "\(path)[\(index)]", into: &found)
            }
        default:
            if !same(recorded, signed) {
                found.append("\(path) is \(text(recorded)), the signed text gives \(text(signed))")
            }
        }
    }

    private static func same(_ left: Any?, _ right: Any?) -> Bool {
        switch (left, right) {
        case (nil, nil): true
        case let (left as NSObject, right as NSObject): left.isEqual(right)
        default: false
        }
    }

    private static func text(_ value: Any?) -> String {
        guard let value else { return "absent" }
        if let string = value as? String { return "\"\(string.prefix(80))\"" }
        if let array = value as? [Any] { return "\(array.count) item\(array.count == 1 ? "" : "s")" }
        // As JSON writes it, so a boolean reads true or false, not 1 or 0.
        if let json = try? JSONSerialization.data(withJSONObject: [value], options: [.fragmentsAllowed]) {
            return String(decoding: json.dropFirst().dropLast(), as: UTF8.self)
        }
        return "\(value)"
    }
}
