import AppStore
import Foundation
import Hummingbird
import Logging
import NIOCore
import Synchronization

/// A local stand-in for Apple's verifyReceipt that keeps the `password` of every request and
/// refuses each with 21004 (the shared secret does not match): enough to see which secret a real
/// `serve` process sends, and what it answers its client for that refusal.
final class RecordingVerifyReceipt: Sendable {
    private let passwords = Mutex<[String?]>([])

    /// Every password received, in order (nil for a request without one, or a body that is not
    /// verifyReceipt JSON).
    var received: [String?] { passwords.withLock { $0 } }

    private init() {}

    /// Runs the fake for `body`, passing its base URL (production at `/production`, the sandbox at
    /// `/sandbox`) and the fake.
    static func run(_ body: @Sendable (String, RecordingVerifyReceipt) async throws -> Void) async throws {
        let fake = RecordingVerifyReceipt()
        let (ports, portContinuation) = AsyncStream<Int>.makeStream()
        let router = Router()
        for environment in ["production", "sandbox"] {
            router.post(RouterPath(environment)) { request, _ -> Response in
                let bytes = try await request.body.collect(upTo: 1 << 20)
                let sent = try? JSONDecoder().decode(VerifyReceiptRequest.self, from: Data(bytes.readableBytesView))
                fake.passwords.withLock { $0.append(sent?.password) }
                return Response(status: .ok, body: .init(byteBuffer: ByteBuffer(string: #"{"status":21004}"#)))
            }
        }
        var logger = Logger(label: "fake.verifyReceipt")
        logger.logLevel = .critical
        let app = Application(
            router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)),
            onServerRunning: { channel in portContinuation.yield(channel.localAddress?.port ?? 0) }, logger: logger
        )
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                // A server that ends before it listens ends the wait for its port too.
                defer { portContinuation.finish() }
                try await app.runService()
            }
            var iterator = ports.makeAsyncIterator()
            guard let port = await iterator.next() else {
                // Its error, if it threw one, says more than this.
                _ = try await group.next()
                throw NotListening()
            }
            defer { group.cancelAll() }
            guard port != 0 else { throw NotListening() }
            try await body("http://127.0.0.1:\(port)", fake)
        }
    }

    /// The fake stopped before it listened without an error of its own, or gave no port.
    struct NotListening: Error {}
}
