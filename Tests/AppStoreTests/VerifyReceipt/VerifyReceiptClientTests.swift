import AppStore
import AppStoreTesting
import Foundation
import Testing

/// `VerifyReceiptClient` against a local fake of Apple's endpoints.
@Suite(.serialized) struct VerifyReceiptClientTests {
    static let valid = #"{"status":0,"environment":"Production","receipt":{"bundle_id":"com.example","in_app":[{"transaction_id":"1001","purchase_date_ms":"1698148900000"}]}}"#
    static let validSandbox = #"{"status":0,"environment":"Sandbox","receipt":{"bundle_id":"com.example","in_app":[]}}"#

    @Test func productionSuccessReturnsTheDecodedReceipt() async throws {
        let server = FakeAppleServer(production: [.json(Self.valid)])
        let response = try await server.run { try await VerifyReceiptClient(configuration: $0).verifyReceipt("receipt-b64", excludeOldTransactions: true) }
        #expect(response.status == 0)
        #expect(response.environment == .production)
        #expect(response.receipt?.inApp?.first?.transactionId == "1001")
        let sent = try #require(server.received.first?.request)
        #expect(sent.receiptData == "receipt-b64")
        #expect(sent.password == "shared-secret")
        #expect(sent.excludeOldTransactions == true)
        #expect(server.received.map(\.environment) == ["production"])
        // The answer byte for byte, fields this library does not decode included.
        #expect(response.receivedBody == Data(Self.valid.utf8))
    }

    /// Fields the model does not name (`purchase_date`, `download_id`, ...) and string-typed numbers
    /// stay in the kept body exactly as Apple sent them.
    @Test func theKeptBodyIsTheAnswerAsReceived() async throws {
        let body = #"{"status":0, "environment":"Production","receipt":{"bundle_id":"com.example","download_id":7,"in_app":[]},"latest_receipt_info":[{"transaction_id":"1001","purchase_date":"2023-10-24 12:01:40 Etc/GMT","purchase_date_ms":"1698148900000"}]}"#
        let server = FakeAppleServer(production: [.json(body)])
        let response = try await server.run { try await VerifyReceiptClient(configuration: $0).verifyReceipt("r", excludeOldTransactions: false) }
        #expect(response.receivedBody.map { String(decoding: $0, as: UTF8.self) } == body)
        #expect(response.latestReceiptInfo?.first?.transactionId == "1001")
    }

    /// Production's 21007 sends the same request to the sandbox: the same receipt, and the configured
    /// secret again when the call names none.
    @Test func sandboxReceiptIsRedirectedToSandbox() async throws {
        let server = FakeAppleServer(production: [.status(21007)], sandbox: [.json(Self.validSandbox)])
        let response = try await server.run { try await VerifyReceiptClient(configuration: $0).verifyReceipt("r", excludeOldTransactions: false) }
        #expect(response.environment == .sandbox)
        #expect(server.received.map(\.environment) == ["production", "sandbox"])
        #expect(server.received.map(\.request?.receiptData) == ["r", "r"])
        #expect(server.received.map(\.request?.password) == ["shared-secret", "shared-secret"])
        #expect(server.received.last?.request?.excludeOldTransactions == false)
    }

    /// A secret the call names (an app's own) goes instead of the configured one, to production and
    /// again to the sandbox after 21007: the redirect must not fall back to the default.
    @Test func aSecretNamedForTheCallGoesToProductionAndToTheSandbox() async throws {
        let server = FakeAppleServer(production: [.status(21007)], sandbox: [.json(Self.validSandbox)])
        let response = try await server.run {
            try await VerifyReceiptClient(configuration: $0).verifyReceipt("receipt-b64", excludeOldTransactions: true, sharedSecret: "app-secret")
        }
        #expect(response.environment == .sandbox)
        #expect(server.received.map(\.environment) == ["production", "sandbox"])
        #expect(server.received.map(\.request?.receiptData) == ["receipt-b64", "receipt-b64"])
        #expect(server.received.map(\.request?.password) == ["app-secret", "app-secret"])
        #expect(server.received.map(\.request?.excludeOldTransactions) == [true, true])
    }

    @Test(arguments: [21002, 21005, 21009])
    func retryableStatusIsRetriedUntilSuccess(status: Int) async throws {
        let server = FakeAppleServer(production: [.status(status), .status(status), .json(Self.valid)])
        let response = try await server.run { try await VerifyReceiptClient(configuration: $0).verifyReceipt("r", excludeOldTransactions: false) }
        #expect(response.status == 0)
        #expect(server.received.count == 3)
    }

    @Test func isRetryableInternalErrorIsRetried() async throws {
        let server = FakeAppleServer(production: [.status(21104, extra: ",\"is-retryable\":true"), .json(Self.valid)])
        let response = try await server.run { try await VerifyReceiptClient(configuration: $0).verifyReceipt("r", excludeOldTransactions: false) }
        #expect(response.status == 0)
        #expect(server.received.count == 2)
    }

    /// Apple documents `is-retryable` for 21100–21199 only: without it such an error is retried (it is
    /// Apple's, not the receipt's); an explicit `false` is the answer.
    @Test func anInternalErrorWithoutIsRetryableIsRetriedAndFalseIsNot() async throws {
        let unmarked = FakeAppleServer(production: [.status(21150), .json(Self.valid)])
        let response = try await unmarked.run { try await VerifyReceiptClient(configuration: $0).verifyReceipt("r", excludeOldTransactions: false) }
        #expect(response.status == 0)
        #expect(unmarked.received.count == 2)

        let final = FakeAppleServer(production: [.status(21150, extra: ",\"is-retryable\":false"), .json(Self.valid)])
        let answer = try await final.run { try await VerifyReceiptClient(configuration: $0).verifyReceipt("r", excludeOldTransactions: false) }
        #expect(answer.status == 21150)
        #expect(final.received.count == 1)
    }

    @Test func persistentRetryableStatusEndsAsAppleUnavailable() async throws {
        let server = FakeAppleServer(production: [.status(21005)])
        let code = await errorCode { _ = try await server.run { try await VerifyReceiptClient(configuration: $0).verifyReceipt("r", excludeOldTransactions: false) } }
        #expect(code == "apple_unavailable")
        #expect(server.received.count == 3)
    }

    @Test func serverErrorIsRetried() async throws {
        let server = FakeAppleServer(production: [FakeAppleServer.Reply(status: .serviceUnavailable, body: "<html>busy</html>"), .json(Self.valid)])
        let response = try await server.run { try await VerifyReceiptClient(configuration: $0).verifyReceipt("r", excludeOldTransactions: false) }
        #expect(response.status == 0)
    }

    /// A slow answer is retried, then reported as `apple_unavailable`, within the timeouts. The
    /// request timeout covers the body too: a head that arrives at once followed by a body that
    /// stalls times out like a slow head, not after the connection's idle limit.
    @Test(arguments: ["slow head", "stalled body"])
    func timeoutIsRetriedThenReportedAsAppleUnavailable(_ slowPart: String) async throws {
        let slow = slowPart == "slow head"
            ? FakeAppleServer.Reply(body: Self.valid, delay: .seconds(4))
            : FakeAppleServer.Reply(body: Self.valid, bodyStall: .seconds(20))
        let server = FakeAppleServer(production: [slow])
        let started = ContinuousClock.now
        let code = await errorCode {
            _ = try await server.run { configuration in
                var configuration = configuration
                configuration.requestTimeout = .seconds(1)
                configuration.maximumAttempts = 2
                return try await VerifyReceiptClient(configuration: configuration).verifyReceipt("r", excludeOldTransactions: false)
            }
        }
        #expect(code == "apple_unavailable")
        #expect(ContinuousClock.now - started < .seconds(10))
        #expect(server.received.count == 2)
    }

    @Test func timeoutThenSuccessRecovers() async throws {
        // The timeout leaves the fast reply a full second even on a loaded machine.
        let server = FakeAppleServer(production: [FakeAppleServer.Reply(body: Self.valid, delay: .seconds(4)), .json(Self.valid)])
        let response = try await server.run { configuration in
            var configuration = configuration
            configuration.requestTimeout = .seconds(1)
            return try await VerifyReceiptClient(configuration: configuration).verifyReceipt("r", excludeOldTransactions: false)
        }
        #expect(response.status == 0)
    }

    @Test(arguments: ["<html>oops</html>", "", "[1,2]", "{\"environment\":\"Sandbox\"}"])
    func nonJSONBodyIsAnInvalidResponse(body: String) async throws {
        let server = FakeAppleServer(production: [.json(body)])
        let error = await appStoreError { _ = try await server.run { try await VerifyReceiptClient(configuration: $0).verifyReceipt("r", excludeOldTransactions: false) } }
        #expect(error?.code == .invalidResponse)
        // The detail names the URL that answered, as the other failures of the exchange do.
        #expect(error?.message.contains("/production/verifyReceipt answered ") == true, "\(String(describing: error))")
    }

    @Test func invalidReceiptStatusIsReturnedNotThrown() async throws {
        let server = FakeAppleServer(production: [.status(21003)])
        let response = try await server.run { try await VerifyReceiptClient(configuration: $0).verifyReceipt("r", excludeOldTransactions: false) }
        #expect(response.status == 21003)
        #expect(server.received.count == 1)
    }

    /// 21000 says the request arrived as something other than a POST of verifyReceipt JSON (an http
    /// URL redirected and followed as a GET): nothing about the receipt, so not returned as its answer.
    @Test func statusTwentyOneThousandIsAnInvalidResponse() async throws {
        let server = FakeAppleServer(production: [.status(21000)])
        let error = await appStoreError { _ = try await server.run { try await VerifyReceiptClient(configuration: $0).verifyReceipt("r", excludeOldTransactions: false) } }
        #expect(error?.code == .invalidResponse)
        #expect(error?.message.contains("answered status 21000: the request did not reach it as a POST") == true)
        #expect(server.received.count == 1)
    }

    /// Production says the receipt is the sandbox's and the sandbox says it is production's: the URLs
    /// are not Apple's two environments (or Apple contradicts itself), which the receipt cannot mend.
    @Test func environmentsThatContradictEachOtherAreAnInvalidResponse() async throws {
        let server = FakeAppleServer(production: [.status(21007)], sandbox: [.status(21008)])
        let error = await appStoreError { _ = try await server.run { try await VerifyReceiptClient(configuration: $0).verifyReceipt("r", excludeOldTransactions: false) } }
        #expect(error?.code == .invalidResponse)
        #expect(server.received.map(\.environment) == ["production", "sandbox"])
        let message = try #require(error?.message)
        #expect(message.contains("answered 21007 (a sandbox receipt sent to production), then "))
        #expect(message.contains("/sandbox/verifyReceipt answered 21008 (a production receipt sent to sandbox)"))

        // A production URL answering as the sandbox does (21008) is not redirected either.
        let sandboxAsProduction = FakeAppleServer(production: [.status(21008)], sandbox: [.json(Self.validSandbox)])
        let code = await errorCode { _ = try await sandboxAsProduction.run { try await VerifyReceiptClient(configuration: $0).verifyReceipt("r", excludeOldTransactions: false) } }
        #expect(code == "invalid_response")
        #expect(sandboxAsProduction.received.map(\.environment) == ["production"])
    }

    @Test func unreachableHostIsAppleUnavailable() async throws {
        let configuration = VerifyReceiptClient.Configuration(
            productionURL: "http://127.0.0.1:9/verifyReceipt",
            sandboxURL: "http://127.0.0.1:9/verifyReceipt",
            maximumAttempts: 2,
            initialBackoff: .milliseconds(1),
            requestTimeout: .milliseconds(500)
        )
        let error = await appStoreError { _ = try await VerifyReceiptClient(configuration: configuration).verifyReceipt("r", excludeOldTransactions: false) }
        #expect(error?.code == .appleUnavailable)

        // On the client `serve` uses, a refused connection fails its attempt at once, and the
        // message says so in words, not NIO's "connection reset (error set): Connection refused (errno: 111)".
        let httpClient = VerifyReceiptClient.makeHTTPClient()
        let refused = await appStoreError {
            _ = try await VerifyReceiptClient(configuration: configuration, httpClient: httpClient).verifyReceipt("r", excludeOldTransactions: false)
        }
        // A host name goes through NIO's happy eyeballs, whose error gathers each address's failure.
        var named = configuration
        named.productionURL = "http://localhost:9/verifyReceipt"
        let byName = await appStoreError {
            _ = try await VerifyReceiptClient(configuration: named, httpClient: httpClient).verifyReceipt("r", excludeOldTransactions: false)
        }
        try await httpClient.shutdown()
        #expect(refused?.message == "verifyReceipt at http://127.0.0.1:9/verifyReceipt failed 2 times, last: connection refused")
        let message = try #require(byName?.message)
        #expect(message.hasPrefix("verifyReceipt at http://localhost:9/verifyReceipt failed 2 times, last: connection refused"), "\(message)")
        #expect(!message.contains("errno") && !message.contains("SingleConnectionFailure"), "\(message)")
    }

    @Test func backoffDoublesUpToItsMaximum() {
        let configuration = VerifyReceiptClient.Configuration(initialBackoff: .milliseconds(100), maximumBackoff: .milliseconds(350))
        let delays = (1...4).map { configuration.backoff(beforeRetry: $0) }
        #expect(delays == [.milliseconds(100), .milliseconds(200), .milliseconds(350), .milliseconds(350)])
    }

    @Test func fakeValidatorAnswersWhatWasRegistered() async throws {
        let fake = FakeReceiptValidator()
        fake.register(VerifyReceiptResponse(status: 0, environment: .sandbox), for: "good")
        fake.register(AppStoreError(.appleUnavailable, "down"), for: "down")
        #expect(try await fake.verifyReceipt("good", excludeOldTransactions: true).status == 0)
        #expect(try await fake.verifyReceipt("unknown", excludeOldTransactions: false).status == 21003)
        #expect(await errorCode { _ = try await fake.verifyReceipt("down", excludeOldTransactions: false) } == "apple_unavailable")
        #expect(fake.requests.map(\.receiptData) == ["good", "unknown", "down"])
    }
}
