import AppStoreTesting
import AppStore
import Foundation
import Hummingbird
import Logging
import NIOCore

/// A local stand-in for Apple's verifyReceipt: production answers 21007 (a sandbox receipt) for
/// `sandbox-receipt`, 21005 for `flaky-receipt`, 21004 (wrong shared secret) for
/// `wrong-secret-receipt` and for a real PKCS#7 receipt (``foreignReceiptPrefix``: another
/// developer's app, whose secret is not ours); the sandbox validates it, and answers
/// `consumable-receipt` with a receipt listing consumable 3500 (`coins.100`), which the app has not finished.
/// Two answers no receipt can mend: `contradicting-receipt` gets 21008 from the sandbox too, and
/// `moved-receipt` a 301 to `/moved`, which answers a GET with 21000 as Apple does.
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

    static func run(_ body: @Sendable (String) async throws -> Void) async throws {
        let router = Router()
        router.post("production") { request, _ -> Response in
            let text = String(buffer: try await request.body.collect(upTo: 1 << 20))
            if text.contains("moved-receipt") {
                return Response(status: .movedPermanently, headers: [.location: "/moved"])
            }
            let status = text.contains("flaky-receipt") ? 21005 : text.contains("wrong-secret-receipt") || text.contains(foreignReceiptPrefix) ? 21004 : 21007
            return Response(status: .ok, body: .init(byteBuffer: ByteBuffer(string: #"{"status":\#(status)}"#)))
        }
        router.get("moved") { _, _ -> Response in
            Response(status: .ok, body: .init(byteBuffer: ByteBuffer(string: #"{"status":21000}"#)))
        }
        router.post("sandbox") { request, _ -> Response in
            let text = String(buffer: try await request.body.collect(upTo: 1 << 20))
            let answer = text.contains("contradicting-receipt") ? #"{"status":21008}"# : text.contains("consumable-receipt") ? consumableResponse : sandboxResponse
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
            try await body("http://127.0.0.1:\(port)")
        }
    }

    /// The fake server stopped before it listened without an error of its own, or gave no port.
    struct NotListening: Error {}
}
