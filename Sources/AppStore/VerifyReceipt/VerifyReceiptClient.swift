import AsyncHTTPClient
import Foundation
import Logging
import NIOCore

/// A ``ReceiptValidating`` client of Apple's deprecated `verifyReceipt` endpoint, on async-http-client.
///
/// Posts to production first and, on 21007 (a sandbox receipt), once to sandbox, as Apple documents.
/// Transport failures, HTTP 5xx/429, statuses 21002/21005/21009
/// and `is-retryable` answers are retried with exponential backoff up to
/// ``Configuration/maximumAttempts`` per URL, then reported as `apple_unavailable`. A body that is
/// not verifyReceipt JSON, status 21000 (the request arrived changed) and a 21007/21008 the redirect
/// does not settle (a 21008 from production, or either after the redirect: the two URLs are not
/// Apple's two environments) are `invalid_response`: none says anything of the receipt. Any other
/// status is returned to the caller.
public struct VerifyReceiptClient: ReceiptValidating {
    /// The client's configuration.
    public let configuration: Configuration
    private let httpClient: HTTPClient
    private let logger: Logger

    /// Creates a client; it does not own `httpClient` (the shared one by default).
    /// - Why: its shared secret is the default when a call names none; inject an `HTTPClient` to control
    ///   its lifecycle, such as one from ``makeHTTPClient()``, which fails fast on a refused connection.
    public init(configuration: Configuration, httpClient: HTTPClient = .shared, logger: Logger = Logger(label: "subledger.appstore.verifyReceipt")) {
        self.configuration = configuration
        self.httpClient = httpClient
        self.logger = logger
    }

    /// Verifies `receiptData` (base64) with `sharedSecret`, or the configured one when nil, see
    /// ``ReceiptValidating/verifyReceipt(_:excludeOldTransactions:sharedSecret:logger:)``.
    public func verifyReceipt(
        _ receiptData: String, excludeOldTransactions: Bool, sharedSecret: String?, logger: Logger?
    ) async throws -> VerifyReceiptResponse {
        let logger = logger ?? self.logger
        let request = VerifyReceiptRequest(
            receiptData: receiptData,
            password: sharedSecret ?? configuration.sharedSecret,
            excludeOldTransactions: excludeOldTransactions
        )
        let body: Data
        do {
            body = try JSONEncoder().encode(request)
        } catch {
            throw AppStoreError(.invalidConfiguration, "cannot encode the verifyReceipt request: \(error)")
        }

        var url = configuration.productionURL
        var answers: [(url: String, status: Int)] = []
        while true {
            let response = try await postWithRetries(body, to: url, logger: logger)
            let status = response.status ?? -1
            answers.append((url, status))
            // One redirect: production's first answer is the only one that can send it to sandbox.
            if answers.count == 1, status == VerifyReceiptStatus.sandboxReceiptSentToProduction {
                logger.debug("verifyReceipt: sandbox receipt, retrying against sandbox")
                url = configuration.sandboxURL
                continue
            }
            if status == VerifyReceiptStatus.requestNotPosted {
                // Typically an http:// URL whose redirect to https was followed as a GET.
                throw AppStoreError(
                    .invalidResponse,
                    "verifyReceipt at \(url) answered status 21000: the request did not reach it as a POST of verifyReceipt JSON it could read; a redirect or a proxy on the way may have changed it (check that the URL is https and final)"
                )
            }
            if VerifyReceiptStatus.isEnvironmentRedirect(status) {
                throw AppStoreError(.invalidResponse, Self.unsettledEnvironment(answers))
            }
            return response
        }
    }

    /// Why a 21007 or 21008 is left after the one redirect: each URL asked sends the receipt to the
    /// other environment (or the production URL answers as the sandbox does), so the configured URLs
    /// are not Apple's production and sandbox endpoints, or Apple contradicts itself.
    private static func unsettledEnvironment(_ answers: [(url: String, status: Int)]) -> String {
        let said = answers.map { answer in
            let meaning = switch answer.status {
            case VerifyReceiptStatus.sandboxReceiptSentToProduction: " (a sandbox receipt sent to production)"
            case VerifyReceiptStatus.productionReceiptSentToSandbox: " (a production receipt sent to sandbox)"
            default: ""
            }
            return "\(answer.url) answered \(answer.status)\(meaning)"
        }
        return "verifyReceipt's answers settle on no environment: \(said.joined(separator: ", then ")); check that the production and sandbox URLs are Apple's production and sandbox endpoints"
    }

    /// Posts until a non-transient answer, or throws `apple_unavailable` once the attempts are spent.
    private func postWithRetries(_ body: Data, to url: String, logger: Logger) async throws -> VerifyReceiptResponse {
        let attempts = max(1, configuration.maximumAttempts)
        var lastProblem = "no attempt made"
        for attempt in 1...attempts {
            if attempt > 1 {
                try await Task.sleep(for: configuration.backoff(beforeRetry: attempt - 1))
            }
            switch try await post(body, to: url, logger: logger) {
            case .answer(let response):
                return response
            case .transient(let problem):
                lastProblem = problem
                logger.warning(
                    "verifyReceipt transient failure",
                    metadata: ["url": "\(url)", "attempt": "\(attempt)", "problem": "\(problem)"]
                )
            }
        }
        let tries = attempts == 1 ? "once" : "\(attempts) times"
        throw AppStoreError(.appleUnavailable, "verifyReceipt at \(url) failed \(tries), last: \(lastProblem)")
    }

    /// The whole exchange, head and body, took longer than `requestTimeout`.
    private struct ExchangeTimedOut: Error, CustomStringConvertible {
        var limit: Duration
        var description: String { "no whole answer within \(limit)" }
    }

    private enum Outcome {
        case answer(VerifyReceiptResponse)
        case transient(String)
    }

    /// One HTTP exchange, classified.
    private func post(_ body: Data, to url: String, logger: Logger) async throws -> Outcome {
        var request = HTTPClientRequest(url: url)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/json")
        request.headers.add(name: "Accept", value: "application/json")
        request.body = .bytes(ByteBuffer(bytes: body))
        let prepared = request

        let timeout = TimeAmount.nanoseconds(Self.nanoseconds(configuration.requestTimeout))
        let bytes: ByteBuffer
        let httpStatus: UInt
        do {
            (httpStatus, bytes) = try await withThrowingTaskGroup(of: (UInt, ByteBuffer)?.self) { [httpClient, configuration] group in
                group.addTask {
                    let response = try await httpClient.execute(prepared, timeout: timeout, logger: logger)
                    return (response.status.code, try await response.body.collect(upTo: configuration.maximumResponseSize))
                }
                // async-http-client's deadline ends when the head arrives: a body that trickles in
                // would hold the request (and the caller) until the connection's idle timeout.
                group.addTask {
                    try await Task.sleep(for: configuration.requestTimeout)
                    return nil
                }
                defer { group.cancelAll() }
                guard let first = try await group.next(), let exchange = first else {
                    throw ExchangeTimedOut(limit: configuration.requestTimeout)
                }
                return exchange
            }
        } catch is NIOTooManyBytesError {
            throw AppStoreError(.invalidResponse, "verifyReceipt at \(url) answered more than \(configuration.maximumResponseSize) bytes")
        } catch is CancellationError {
            throw CancellationError()
        } catch {
            try Task.checkCancellation()
            return .transient(TransportProblem.describe(error))
        }

        if httpStatus >= 500 || httpStatus == 429 {
            return .transient("HTTP \(httpStatus)")
        }
        guard httpStatus == 200 else {
            throw AppStoreError(.invalidResponse, "verifyReceipt at \(url) answered HTTP \(httpStatus)")
        }
        let received = Data(bytes.readableBytesView)
        var decoded: VerifyReceiptResponse
        do {
            decoded = try JSONDecoder().decode(VerifyReceiptResponse.self, fromUntrusted: received)
        } catch {
            // Where the body differs from Apple's documented shape, without the decoder's Swift text.
            throw AppStoreError(.invalidResponse, "verifyReceipt at \(url) answered HTTP 200 with a body that is not verifyReceipt JSON (\(received.count) bytes\((error as? DecodingError).map { ": " + $0.summary } ?? ""))")
        }
        decoded.receivedBody = received
        guard let status = decoded.status else {
            throw AppStoreError(.invalidResponse, "verifyReceipt at \(url) answered a body without a status")
        }
        if VerifyReceiptStatus.isRetried(status, isRetryable: decoded.isRetryable?.boolValue) {
            return .transient("status \(status)")
        }
        return .answer(decoded)
    }

    private static func nanoseconds(_ duration: Duration) -> Int64 {
        let (seconds, attoseconds) = duration.components
        return seconds.multipliedReportingOverflow(by: 1_000_000_000).partialValue + attoseconds / 1_000_000_000
    }
}
