import AppStoreTesting
import Foundation
import NIOCore
import Testing

@testable import LedgerHTTP

/// `Expect: 100-continue` is answered with `100 Continue` before the body is sent, so a client that
/// waits for it (curl above 1 MiB, older libcurl above 1 KiB) does not sit out its own timer.
struct ExpectContinueTests {
    static let continueLine = "HTTP/1.1 100 Continue\r\n\r\n"

    static func post(version: String = "1.1", expect: String = "100-continue", length: Int) -> String {
        "POST /v1/apple/notifications/v2 HTTP/\(version)\r\nHost: x\r\nExpect: \(expect)\r\nContent-Type: application/json\r\nContent-Length: \(length)\r\n\r\n"
    }

    /// The head alone gets the 100; the body sent after it, a signed notification, gets the
    /// request's own answer and is recorded once.
    @Test(arguments: ["100-continue", "100-Continue"])
    func aHeadThatExpectsContinueGetsItBeforeTheBodyIsSent(_ expect: String) async throws {
        let body = try APIHarness.signedRenewalBody()
        try await RawConnection.withServer(idleTimeout: .seconds(30), requestTimeout: .seconds(60)) { channel, _, events in
            let answers = ReadRecorder()
            try await channel.pipeline.addHandler(answers).get()
            try await channel.writeAndFlush(ByteBuffer(string: Self.post(expect: expect, length: body.utf8.count))).get()
            #expect(try await answers.waitFor(Self.continueLine) == Self.continueLine)
            let before = answers.count
            try await channel.writeAndFlush(ByteBuffer(string: body)).get()
            let answer = try await answers.waitForAnswer(after: before).text
            #expect(answer.hasPrefix("HTTP/1.1 200"), "\(answer)")
            #expect(answer.contains(#""result":"recorded""#), "\(answer)")
            #expect(try await events() == 1)
        }
    }

    /// A body declared over the 1 MiB limit gets no 100 but its 413 at once, from the head alone, so
    /// the client need not send a byte of it (it used to get the 100 and be read up to the limit).
    /// The server then closes its side: the client may send the body or not, and reading on, the
    /// server would take its next request for the rest of this body. Here the client sends, after
    /// the 413, a whole request the endpoint would record if the server served it (for the two
    /// endpoints this test can sign one for), and nothing is recorded.
    @Test(arguments: [
        ("/v1/apple/notifications/v2", "2097152"), ("/v1/apple/notifications/v1", "1048577"),
        ("/v1/apple/transactions", "2097152"), ("/v1/apple/receipts", "18446744073709551615"),
        // A space after the value, which HTTP allows, does not earn the body its 100.
        ("/v1/apple/notifications/v2", "2097152 "),
    ])
    func aBodyDeclaredOverTheLimitIsRefusedFromTheHeadWithoutAContinue(_ path: String, _ length: String) async throws {
        let recordable = try Self.recordableBody(for: path)
        try await RawConnection.withServer(idleTimeout: .seconds(30), requestTimeout: .seconds(60)) { channel, _, events in
            let answers = ReadRecorder()
            try await channel.pipeline.addHandler(answers).get()
            let head = "POST \(path) HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer \(APIHarness.ingestKey)\r\nExpect: 100-continue\r\n"
                + "Content-Type: application/json\r\nContent-Length: \(length)\r\n\r\n"
            try await channel.writeAndFlush(ByteBuffer(string: head)).get()
            let answer = try await answers.waitFor(#""code":"payload_too_large""#)
            #expect(answer.hasPrefix("HTTP/1.1 413"), "\(answer)")
            #expect(!answer.contains("100 Continue"), "\(answer)")
            // The header's text, even past the range of Int.
            #expect(answer.contains("the body is \(length.trimmingCharacters(in: .whitespaces)) bytes by its Content-Length, and request bodies are limited to 1048576 bytes"), "\(answer)")
            #expect(answer.lowercased().contains("connection: close\r\n"), "\(answer)")
            // A whole request after it, with its true length: a server that kept the connection and
            // took what follows for a new request (as if the declared body were not coming) would
            // serve and record it. It may have closed already, and the write then fails.
            if let body = recordable {
                let next = "POST \(path) HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer \(APIHarness.ingestKey)\r\n"
                    + "Content-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)"
                try? await channel.writeAndFlush(ByteBuffer(string: next)).get()
            }
            #expect(try await RawConnection.closes(channel, within: .seconds(5)))
            #expect(try await events() == 0)
        }
    }

    /// Without `Expect`, such a request is answered before its body is sent too; the body that still
    /// comes is read and dropped, and the connection then serves its next request.
    @Test func aBodyDeclaredOverTheLimitIsAnsweredAtOnceAndTheConnectionGoesOn() async throws {
        try await RawConnection.withServer(idleTimeout: .seconds(30), requestTimeout: .seconds(60)) { channel, _, _ in
            let answers = ReadRecorder()
            try await channel.pipeline.addHandler(answers).get()
            let length = 2 << 20
            let head = "POST /v1/apple/notifications/v2 HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: \(length)\r\n\r\n"
            try await channel.writeAndFlush(ByteBuffer(string: head)).get()
            let answer = try await answers.waitForAnswer(after: 0).text
            #expect(answer.hasPrefix("HTTP/1.1 413"), "\(answer)")
            let before = answers.count
            try await channel.writeAndFlush(ByteBuffer(repeating: UInt8(ascii: "x"), count: length)).get()
            try await channel.writeAndFlush(ByteBuffer(string: "GET /health HTTP/1.1\r\nHost: x\r\n\r\n")).get()
            let health = try await answers.waitForAnswer(after: before).text
            #expect(health.hasPrefix("HTTP/1.1 200"), "\(health)")
        }
    }

    /// A body of exactly the limit still gets its 100 and is read: not JSON, it is a 400, not a 413.
    @Test func aBodyDeclaredAtTheLimitStillGetsItsContinueAndIsRead() async throws {
        try await RawConnection.withServer(idleTimeout: .seconds(30), requestTimeout: .seconds(60)) { channel, _, _ in
            let answers = ReadRecorder()
            try await channel.pipeline.addHandler(answers).get()
            // The V1 webhook: the V2 one has a lower limit of its own, for its signed payload.
            let head = Self.post(length: 1 << 20).replacingOccurrences(of: "/v1/apple/notifications/v2", with: "/v1/apple/notifications/v1")
            try await channel.writeAndFlush(ByteBuffer(string: head)).get()
            #expect(try await answers.waitFor(Self.continueLine) == Self.continueLine)
            let before = answers.count
            try await channel.writeAndFlush(ByteBuffer(repeating: UInt8(ascii: "x"), count: 1 << 20)).get()
            let answer = try await answers.waitForAnswer(after: before).text
            #expect(answer.hasPrefix("HTTP/1.1 400"), "\(answer)")
            #expect(answer.contains(#""code":"malformed_body""#), "\(answer)")
        }
    }

    /// A body the endpoint at `path` records when it reads it whole, where this test can sign one:
    /// a notification for the V2 webhook, a transaction for submissions. The V1 webhook's and the
    /// receipt endpoint's bodies are checked with Apple's verifyReceipt, which these servers cannot
    /// reach, so none is sent there.
    private static func recordableBody(for path: String) throws -> String? {
        switch path {
        case "/v1/apple/notifications/v2":
            return try APIHarness.signedRenewalBody()
        case "/v1/apple/transactions":
            let jws = try APIHarness.pki.get().signTransaction(APIHarness.transaction("5000", original: "5000", purchased: 0, expires: 30))
            return #"{"user_id":"u1","signed_transaction":"\#(jws)"}"#
        default:
            return nil
        }
    }

    @Test func aDeclaredLengthIsOneWholeNumber() {
        #expect(ContentLength(["1048577"])?.bytes == 1_048_577)
        #expect(ContentLength(["12", "12"])?.bytes == 12)
        // Spaces and tabs around the value are not part of it, as the HTTP parser reads it.
        #expect(ContentLength(["2000000 "]) == ContentLength(["2000000"]))
        #expect(ContentLength(["\t12 ", "12"])?.bytes == 12)
        #expect(ContentLength(["\t12 ", "12"])?.text == "12")
        // Past Int's range: over any limit, and the refusal repeats the digits, not Int.max.
        #expect(ContentLength(["99999999999999999999999"])?.bytes == Int.max)
        #expect(ContentLength([" 99999999999999999999999"])?.text == "99999999999999999999999")
        for values in [[], [""], [" "], ["12", "13"], ["-1"], ["+5"], ["1e6"], ["1 2"]] as [[String]] {
            #expect(ContentLength(values) == nil, "\(values)")
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
