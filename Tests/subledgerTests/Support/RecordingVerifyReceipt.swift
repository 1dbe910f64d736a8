import Foundation
import Hummingbird
import Logging
import NIOCore
import Synchronization

/// A local stand-in for Apple's verifyReceipt that keeps the `password` of every request and
/// answers each with the status `answer` gives for it: enough to see which shared secret a real
/// `serve` process sends.
final class RecordingVerifyReceipt: Sendable {
    private let passwords = Mutex<[String?]>([])

    /// Every password received, in order (nil for a request without one).
    var received: [String?] { passwords.withLock { $0 } }

    private init() {}

    /// Runs the fake for `body`, passing its base URL (production at `/production`, the sandbox at
    /// `/sandbox`) and the fake. `answer` maps a request's password to verifyReceipt's `status`.
    static func run(
        answer: @escaping @Sendable (String?) -> Int, _ body: @Sendable (String, RecordingVerifyReceipt) async throws -> Void
    ) async throws {
        let fake = RecordingVerifyReceipt()
        let (ports, portContinuation) = AsyncStream<Int>.makeStream()
        let router = Router()
        for environment in ["production", "sandbox"] {
            router.post(RouterPath(environment)) { request, _ -> Response in
                let bytes = try await request.body.collect(upTo: 1 << 20)
                let object = try? JSONSerialization.jsonObject(with: Data(bytes.readableBytesView)) as? [String: Any]
                let password = object?["password"] as? String
                fake.passwords.withLock { $0.append(password) }
                return Response(status: .ok, body: .init(byteBuffer: ByteBuffer(string: #"{"status":\#(answer(password))}"#)))
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
            defer { group.cancelAll() }
            var iterator = ports.makeAsyncIterator()
            guard let port = await iterator.next(), port != 0 else {
                throw NotListening()
            }
            try await body("http://127.0.0.1:\(port)", fake)
        }
    }

    /// The fake stopped before it listened, or gave no port.
    struct NotListening: Error {}
}
