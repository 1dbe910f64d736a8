import AppStoreTesting
import EventStoreTesting
import HummingbirdTesting
import Ledger
import NIOCore
import NIOPosix
import Testing

/// Each answer leaves the server as one write, head and body together: a middleware that wrapped the
/// body (as Hummingbird's `MetricsMiddleware` does, to learn when it was written) made every answer
/// two writes and two hops to the connection's event loop, a measurable share of a read's CPU.
struct ResponseWriteTests {
    @Test func everyAnswerArrivesInOneRead() async throws {
        let pki = try APIHarness.pki.get()
        try await withFreshStore(.sqlite) { fixture in
            let app = try APIHarness.application(
                store: fixture.store, pki: pki, clock: ManualClock(Day.date(0)), verifyReceiptURL: "http://127.0.0.1:9"
            )
            try await app.test(.live) { client in
                let port = try #require(client.port)
                let reads = ReadRecorder()
                let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                    .channelInitializer { $0.pipeline.addHandler(reads) }
                    .connect(host: "127.0.0.1", port: port).get()
                let requests = [
                    "GET /health HTTP/1.1\r\nHost: x\r\n\r\n",
                    "GET /v1/users/u1/entitlements HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer \(APIHarness.readKey)\r\n\r\n",
                    "GET /v1/users/u1/entitlements HTTP/1.1\r\nHost: x\r\n\r\n",
                ]
                // One request at a time, each read as soon as its first bytes arrive: an answer sent
                // as two writes often shows up as two reads (head, then body): one in five here.
                for round in 0..<20 {
                    for (index, request) in requests.enumerated() {
                        let before = reads.count
                        try await channel.writeAndFlush(ByteBuffer(string: request)).get()
                        let answer = try await reads.waitForAnswer(after: before)
                        #expect(answer.reads == 1, "round \(round), request \(index): the answer came in \(answer.reads) reads")
                        #expect(answer.text.hasSuffix("}"), "round \(round), request \(index): \(answer.text)")
                    }
                }
                try? await channel.close()
            }
        }
    }
}
