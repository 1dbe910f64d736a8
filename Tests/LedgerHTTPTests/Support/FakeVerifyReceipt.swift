import AppStoreTesting
import AppStore
import Foundation
import Hummingbird
import Logging
import NIOCore
import Synchronization

/// A local stand-in for Apple's verifyReceipt: production answers 21007 (a sandbox receipt) for
/// `sandbox-receipt`, 21005 for `flaky-receipt`, 21004 (wrong shared secret) for
/// `wrong-secret-receipt` and for a real PKCS#7 receipt (``foreignReceiptPrefix``: another
/// developer's app, whose secret is not ours); the sandbox validates it, and answers
/// `consumable-receipt` with a receipt listing consumable 3500 (`coins.100`), which the app has not finished.
/// Two answers no receipt can mend: `contradicting-receipt` gets 21008 from the sandbox too, and
/// `moved-receipt` a 301 to `/moved`, which answers a GET with 21000 as Apple does.
///
/// It reads each request's verifyReceipt JSON and keeps it in a ``Recorder`` the tests read. Run
/// with secrets, it answers 21004 from either environment to a password that is none of them, as
/// Apple does to a secret that is neither the receipt's app's nor the account's primary one.
enum FakeVerifyReceipt {
    static let sandboxResponse = """
        {"status":0,"environment":"Sandbox","receipt":{"bundle_id":"com.example.app","request_date_ms":"\(Day.ms(10))","in_app":[]},
         "latest_receipt_info":[{"quantity":"1","product_id":"pro.monthly","transaction_id":"3000","original_transaction_id":"3000",
           "purchase_date_ms":"\(Day.ms(0))","expires_date_ms":"\(Day.ms(30))","is_trial_period":"false"}],
         "pending_renewal_info":[{"auto_renew_product_id":"pro.monthly","auto_renew_status":"1","original_transaction_id":"3000","product_id":"pro.monthly"}]}
        """

    static let consumableResponse = """
        {"status":0,"environment":"Sandbox","receipt":{"bundle_id":"com.example.app","request_date_ms":"\(Day.ms(10))","in_app":[]},
         "latest_receipt_info":[{"quantity":"1","product_id":"coins.100","transaction_id":"3500","original_transaction_id":"3500",
           "purchase_date_ms":"\(Day.ms(1))","is_trial_period":"false"}]}
        """

    /// How the base64 of a PKCS#7 `signedData` receipt begins.
    static let foreignReceiptPrefix = "MIAGCSqGSIb3DQEHAq"

    /// One request as the fake received it: where it went and what its JSON body said (nil for a
    /// body that is not verifyReceipt JSON, or none, as the GET after the redirect has).
    struct Received: Sendable, Equatable {
        /// `production`, `sandbox`, or `moved` (the redirect's target).
        var endpoint: String
        var request: VerifyReceiptRequest?
    }

    /// Every request the fake has received, in the order they arrived.
    final class Recorder: Sendable {
        private let received = Mutex<[Received]>([])

        /// How many requests so far; read before a call, it marks where that call's requests begin.
        var count: Int { received.withLock { $0.count } }

        /// The requests after the first `start` (see ``count``).
        func since(_ start: Int) -> [Received] {
            received.withLock { Array($0.dropFirst(start)) }
        }

        /// Reads `body` as verifyReceipt JSON (`VerifyReceiptRequest`'s keys) and keeps it.
        fileprivate func record(_ body: ByteBuffer, at endpoint: String) -> Received {
            let request = Received(
                endpoint: endpoint, request: try? JSONDecoder().decode(VerifyReceiptRequest.self, from: Data(body.readableBytesView))
            )
            received.withLock { $0.append(request) }
            return request
        }
    }

    /// Runs the fake for `body`, passing its base URL; it checks no password.
    static func run(_ body: @Sendable (String) async throws -> Void) async throws {
        try await run(accepting: []) { url, _ in try await body(url) }
    }

    /// Runs the fake for `body`, passing its base URL and what it receives. With `secrets` not empty,
    /// a request whose password is none of them is answered 21004, after `flaky-receipt`'s 21005
    /// (the fake's own order: Apple documents none between its statuses).
    static func run(accepting secrets: Set<String>, _ body: @Sendable (String, Recorder) async throws -> Void) async throws {
        let recorder = Recorder()
        @Sendable func status(_ code: Int) -> Response {
            Response(status: .ok, body: .init(byteBuffer: ByteBuffer(string: #"{"status":\#(code)}"#)))
        }
        @Sendable func refused(_ received: Received) -> Bool {
            !secrets.isEmpty && received.request?.password.map { secrets.contains($0) } != true
        }
        let router = Router()
        router.post("production") { request, _ -> Response in
            let bytes = try await request.body.collect(upTo: 1 << 20)
            let received = recorder.record(bytes, at: "production")
            let receipt = received.request?.receiptData ?? ""
            if receipt.contains("moved-receipt") {
                return Response(status: .movedPermanently, headers: [.location: "/moved"])
            }
            if receipt.contains("flaky-receipt") {
                return status(21005)
            }
            if refused(received) || receipt.contains("wrong-secret-receipt") || receipt.contains(foreignReceiptPrefix) {
                return status(21004)
            }
            return status(21007)
        }
        router.get("moved") { request, _ -> Response in
            let bytes = try await request.body.collect(upTo: 1 << 20)
            _ = recorder.record(bytes, at: "moved")
            return status(21000)
        }
        router.post("sandbox") { request, _ -> Response in
            let bytes = try await request.body.collect(upTo: 1 << 20)
            let received = recorder.record(bytes, at: "sandbox")
            let receipt = received.request?.receiptData ?? ""
            if refused(received) {
                return status(21004)
            }
            let answer = receipt.contains("contradicting-receipt") ? #"{"status":21008}"# : receipt.contains("consumable-receipt") ? consumableResponse : sandboxResponse
            return Response(status: .ok, body: .init(byteBuffer: ByteBuffer(string: answer)))
        }
        let (portStream, portContinuation) = AsyncStream<Int>.makeStream()
        let app = Application(
            router: router,
            configuration: .init(address: .hostname("127.0.0.1", port: 0)),
            onServerRunning: { channel in portContinuation.yield(channel.localAddress?.port ?? 0) },
            logger: {
                var logger = Logger(label: "fake.verifyReceipt")
                logger.logLevel = .critical
                return logger
            }()
        )
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                // A server that ends before it listens ends the wait for its port too.
                defer { portContinuation.finish() }
                try await app.runService()
            }
            var iterator = portStream.makeAsyncIterator()
            guard let port = await iterator.next() else {
                // Its error, if it threw one, says more than this.
                _ = try await group.next()
                throw NotListening()
            }
            defer { group.cancelAll() }
            guard port != 0 else { throw NotListening() }
            try await body("http://127.0.0.1:\(port)", recorder)
        }
    }

    /// The fake server stopped before it listened without an error of its own, or gave no port.
    struct NotListening: Error {}
}
