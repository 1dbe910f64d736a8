import AppStore
import Foundation
import Hummingbird
import Logging
import NIOCore
import Synchronization

/// A local stand-in for Apple's verifyReceipt hosts: a Hummingbird server on 127.0.0.1 (port 0)
/// serving `/production/verifyReceipt` and `/sandbox/verifyReceipt` from a script.
final class FakeAppleServer: Sendable {
    /// One canned answer.
    struct Reply: Sendable {
        var status: HTTPResponse.Status = .ok
        var body: String
        var delay: Duration = .zero
        /// After the head and the body's first byte, how long the rest of the body takes.
        var bodyStall: Duration = .zero

        static func json(_ body: String) -> Reply { Reply(body: body) }
        static func status(_ code: Int, extra: String = "") -> Reply { Reply(body: "{\"status\":\(code)\(extra)}") }
    }

    /// A request as the server saw it.
    struct Received: Sendable {
        var environment: String
        var request: VerifyReceiptRequest?
    }

    private struct State {
        var script: [String: [Reply]] = [:]
        var received: [Received] = []
    }

    private let state = Mutex(State())

    /// Queues replies for `environment` ("production" or "sandbox"); the last one repeats.
    init(production: [Reply] = [], sandbox: [Reply] = []) {
        state.withLock {
            $0.script["production"] = production
            $0.script["sandbox"] = sandbox
        }
    }

    var received: [Received] { state.withLock { $0.received } }

    private func nextReply(for environment: String, request: VerifyReceiptRequest?) -> Reply {
        state.withLock { state in
            state.received.append(Received(environment: environment, request: request))
            var queue = state.script[environment] ?? []
            let reply = queue.first ?? Reply(status: .notFound, body: "no script")
            if queue.count > 1 { queue.removeFirst() }
            state.script[environment] = queue
            return reply
        }
    }

    /// Runs the server for the duration of `body`, passing the client configuration pointing at it.
    func run<T: Sendable>(_ body: @Sendable (VerifyReceiptClient.Configuration) async throws -> T) async throws -> T {
        let router = Router()
        for environment in ["production", "sandbox"] {
            router.post("\(environment)/verifyReceipt") { request, context -> Response in
                let bytes = try await request.body.collect(upTo: 1 << 20)
                let decoded = try? JSONDecoder().decode(VerifyReceiptRequest.self, from: Data(bytes.readableBytesView))
                let reply = self.nextReply(for: environment, request: decoded)
                if reply.delay > .zero { try await Task.sleep(for: reply.delay) }
                guard reply.bodyStall > .zero else {
                    return Response(
                        status: reply.status,
                        headers: [.contentType: "application/json"],
                        body: ResponseBody(byteBuffer: ByteBuffer(string: reply.body))
                    )
                }
                let text = reply.body
                return Response(status: reply.status, headers: [.contentType: "application/json"], body: ResponseBody { writer in
                    try await writer.write(ByteBuffer(string: String(text.prefix(1))))
                    try await Task.sleep(for: reply.bodyStall)
                    try await writer.write(ByteBuffer(string: String(text.dropFirst())))
                    try await writer.finish(nil)
                })
            }
        }
        let (ports, continuation) = AsyncStream.makeStream(of: Int.self)
        let app = Application(
            router: router,
            configuration: .init(address: .hostname("127.0.0.1", port: 0)),
            onServerRunning: { channel in
                continuation.yield(channel.localAddress?.port ?? 0)
                continuation.finish()
            },
            logger: quietLogger
        )
        return try await withThrowingTaskGroup(of: T?.self) { group in
            group.addTask {
                try await app.runService(gracefulShutdownSignals: [])
                return nil
            }
            var port = 0
            for await value in ports { port = value }
            let base = "http://127.0.0.1:\(port)"
            let configuration = VerifyReceiptClient.Configuration(
                productionURL: "\(base)/production/verifyReceipt",
                sandboxURL: "\(base)/sandbox/verifyReceipt",
                sharedSecret: "shared-secret",
                maximumAttempts: 3,
                initialBackoff: .milliseconds(1),
                maximumBackoff: .milliseconds(5),
                // Generous: a loaded CI machine answered a fast reply after more than 500 ms, the
                // client retried, and a test counting requests saw two. Timeout tests set their own.
                requestTimeout: .seconds(10)
            )
            let result = try await body(configuration)
            group.cancelAll()
            return result
        }
    }
}

/// A logger that drops everything below `critical`, so expected failures do not clutter test output.
let quietLogger: Logger = {
    var logger = Logger(label: "test")
    logger.logLevel = .critical
    return logger
}()

extension VerifyReceiptClient {
    /// A client that logs nothing (tests provoke failures on purpose).
    init(configuration: Configuration) {
        self.init(configuration: configuration, httpClient: .shared, logger: quietLogger)
    }
}
