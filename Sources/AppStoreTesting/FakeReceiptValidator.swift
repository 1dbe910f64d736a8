import AppStore
import Foundation
import Logging
import Synchronization

/// An in-memory ``ReceiptValidating`` returning canned verifyReceipt responses.
///
/// For tests of code that depends on the verifyReceipt seam: register a response (or an error)
/// per receipt, then inspect ``requests`` to assert what was asked.
public final class FakeReceiptValidator: ReceiptValidating {
    /// One recorded call.
    public struct Request: Hashable, Sendable {
        /// The base64 receipt passed in.
        public var receiptData: String
        /// The `exclude-old-transactions` flag passed in.
        public var excludeOldTransactions: Bool
        /// The shared secret passed in (nil: the validator's default).
        public var sharedSecret: String?
    }

    private struct State {
        var responses: [String: Result<VerifyReceiptResponse, AppStoreError>] = [:]
        var requests: [Request] = []
    }

    private let state = Mutex(State())
    private let fallback: Result<VerifyReceiptResponse, AppStoreError>

    /// Creates a fake answering unknown receipts with status 21003 (receipt could not be authenticated).
    /// - Why: an unregistered receipt behaves like a forged one.
    public init(fallback: Result<VerifyReceiptResponse, AppStoreError> = .success(VerifyReceiptResponse(status: 21003))) {
        self.fallback = fallback
    }

    /// Answers `receiptData` with `response` from now on.
    /// Its ``VerifyReceiptResponse/receivedBody`` is the response encoded as JSON unless it has one,
    /// as the real client always sets it.
    public func register(_ response: VerifyReceiptResponse, for receiptData: String) {
        var answer = response
        if answer.receivedBody == nil {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            answer.receivedBody = try? encoder.encode(response)
        }
        state.withLock { [answer] in $0.responses[receiptData] = .success(answer) }
    }

    /// Fails `receiptData` with `error` from now on (e.g. `apple_unavailable`).
    public func register(_ error: AppStoreError, for receiptData: String) {
        state.withLock { $0.responses[receiptData] = .failure(error) }
    }

    /// Every call made so far, in order.
    public var requests: [Request] {
        state.withLock { $0.requests }
    }

    /// Returns (or throws) what was registered for `receiptData`.
    public func verifyReceipt(
        _ receiptData: String, excludeOldTransactions: Bool, sharedSecret: String?, logger: Logger?
    ) async throws -> VerifyReceiptResponse {
        let result = state.withLock { state in
            state.requests.append(Request(receiptData: receiptData, excludeOldTransactions: excludeOldTransactions, sharedSecret: sharedSecret))
            return state.responses[receiptData] ?? fallback
        }
        return try result.get()
    }
}
