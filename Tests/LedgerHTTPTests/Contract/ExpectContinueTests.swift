import Foundation
import NIOCore
import Testing

/// `Expect: 100-continue` is answered with `100 Continue` before the body is sent, so a client that
/// waits for it (curl above 1 MiB, older libcurl above 1 KiB) does not sit out its own timer.
struct ExpectContinueTests {
    static let continueLine = "HTTP/1.1 100 Continue\r\n\r\n"

    static func post(version: String = "1.1", expect: String = "100-continue", length: Int) -> String {
        "POST /v1/apple/notifications/v2 HTTP/\(version)\r\nHost: x\r\nExpect: \(expect)\r\nContent-Type: application/json\r\nContent-Length: \(length)\r\n\r\n"
    }

    /// The head alone gets the 100; the body sent after it gets the request's own answer.
    @Test(arguments: ["100-continue", "100-Continue"])
    func aHeadThatExpectsContinueGetsItBeforeTheBodyIsSent(_ expect: String) async throws {
        try await RawConnection.withServer(idleTimeout: .seconds(30), requestTimeout: .seconds(60)) { channel, _, events in
            let answers = ReadRecorder()
            try await channel.pipeline.addHandler(answers).get()
            try await channel.writeAndFlush(ByteBuffer(string: Self.post(expect: expect, length: 2))).get()
            #expect(try await answers.waitFor(Self.continueLine) == Self.continueLine)
            let before = answers.count
            try await channel.writeAndFlush(ByteBuffer(string: "{}")).get()
            let answer = try await answers.waitForAnswer(after: before).text
            #expect(answer.hasPrefix("HTTP/1.1 400"), "\(answer)")
            #expect(answer.contains(#""code":"malformed_body""#), "\(answer)")
            #expect(try await events() == 0)
        }
    }

    /// A request pipelined behind one still being answered gets its 100 after that answer, not in it.
    @Test func aPipelinedRequestGetsItsContinueAfterTheAnswerBeforeIt() async throws {
        try await RawConnection.withServer(idleTimeout: .seconds(30), requestTimeout: .seconds(60)) { channel, _, _ in
            let answers = ReadRecorder()
            try await channel.pipeline.addHandler(answers).get()
            try await channel.writeAndFlush(ByteBuffer(string: "GET /health HTTP/1.1\r\nHost: x\r\n\r\n" + Self.post(length: 2))).get()
            let read = try await answers.waitFor(Self.continueLine)
            let health = try #require(read.range(of: Self.continueLine).map { String(read[..<$0.lowerBound]) })
            #expect(health.hasPrefix("HTTP/1.1 200"), "\(read)")
            #expect(health.hasSuffix(#"{"status":"ok"}"#), "\(read)")
            try await channel.writeAndFlush(ByteBuffer(string: "{}")).get()
            let all = try await answers.waitFor(#""code":"malformed_body""#)
            #expect(all.components(separatedBy: "100 Continue").count == 2, "\(all)")
        }
    }

    /// HTTP/1.0 has no 100 (RFC 9110), and an expectation other than `100-continue` gets none either.
    @Test(arguments: [("1.0", "100-continue"), ("1.1", "something-else")])
    func noContinueForHTTP10OrAnotherExpectation(_ version: String, _ expect: String) async throws {
        try await RawConnection.withServer(idleTimeout: .seconds(30), requestTimeout: .seconds(60)) { channel, _, _ in
            let answers = ReadRecorder()
            try await channel.pipeline.addHandler(answers).get()
            try await channel.writeAndFlush(ByteBuffer(string: Self.post(version: version, expect: expect, length: 2) + "{}")).get()
            let answer = try await answers.waitForAnswer(after: 0).text
            #expect(!answer.contains("100 Continue"), "\(answer)")
            #expect(answer.contains(#""code":"malformed_body""#), "\(answer)")
        }
    }
}
