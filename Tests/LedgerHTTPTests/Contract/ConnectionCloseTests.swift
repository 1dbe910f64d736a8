import NIOCore
import Testing

/// A request that asks for its connection to end after it gets its answer and then the close, at
/// once rather than at the idle timeout; one that asks to keep the connection keeps it.
struct ConnectionCloseTests {
    @Test(arguments: [
        ("HTTP/1.0 without keep-alive", "GET /health HTTP/1.0\r\n\r\n"),
        ("HTTP/1.0 saying close", "GET /health HTTP/1.0\r\nConnection: close\r\n\r\n"),
        ("HTTP/1.1 listing close among other tokens", "GET /health HTTP/1.1\r\nHost: x\r\nConnection: x-custom, close\r\n\r\n"),
        ("HTTP/1.1 saying Close in capitals", "GET /health HTTP/1.1\r\nHost: x\r\nConnection: Close\r\n\r\n"),
    ])
    func aRequestAskingToCloseIsAnsweredThenClosed(asking: String, request: String) async throws {
        // The idle timeout is far off, so a close within seconds is the request's own.
        try await RawConnection.withServer(idleTimeout: .seconds(30), requestTimeout: .seconds(60)) { channel, _, _ in
            let answers = ReadRecorder()
            try await channel.pipeline.addHandler(answers).get()
            try await channel.writeAndFlush(ByteBuffer(string: request)).get()
            #expect(try await RawConnection.closes(channel, within: .seconds(10)), "\(asking): the connection stayed open")
            #expect(answers.text.hasPrefix("HTTP/1.1 200"), "\(asking): \(answers.text)")
            // The answer says the connection ends (RFC 9112 §9.6), once.
            #expect(answers.text.lowercased().components(separatedBy: "connection: close\r\n").count == 2, "\(asking): \(answers.text)")
        }
    }

    /// Of pipelined requests, only the answer to the one asking to close says so.
    @Test func onlyTheAnswerToTheRequestAskingToCloseSaysSo() async throws {
        try await RawConnection.withServer(idleTimeout: .seconds(30), requestTimeout: .seconds(60)) { channel, _, _ in
            let answers = ReadRecorder()
            try await channel.pipeline.addHandler(answers).get()
            let keep = "GET /health HTTP/1.1\r\nHost: x\r\n\r\n"
            let close = "GET /health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
            try await channel.writeAndFlush(ByteBuffer(string: keep + keep + close)).get()
            #expect(try await RawConnection.closes(channel, within: .seconds(10)))
            let heads = answers.text.components(separatedBy: "HTTP/1.1 ").dropFirst().map { $0.lowercased() }
            #expect(heads.count == 3, "\(answers.text)")
            #expect(heads.map { $0.contains("connection: close") } == [false, false, true], "\(answers.text)")
        }
    }

    /// What follows a request asking to close is not read as a request (RFC 9112 §9.6): the client
    /// gets the one answer and the close, not a 400 after it for the bytes it sent on.
    @Test func bytesAfterARequestAskingToCloseGetNoAnswer() async throws {
        try await RawConnection.withServer(idleTimeout: .seconds(30), requestTimeout: .seconds(60)) { channel, _, _ in
            let answers = ReadRecorder()
            try await channel.pipeline.addHandler(answers).get()
            let close = "GET /health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
            try await channel.writeAndFlush(ByteBuffer(string: close + "GET /health HTTP/1.1\r\nHost: x\r\n\r\n")).get()
            #expect(try await RawConnection.closes(channel, within: .seconds(10)))
            let heads = answers.text.components(separatedBy: "HTTP/1.1 ").dropFirst()
            #expect(heads.count == 1, "\(answers.text)")
            #expect(answers.text.hasPrefix("HTTP/1.1 200"), "\(answers.text)")
        }
    }

    @Test(arguments: [
        ("HTTP/1.0 with keep-alive", "GET /health HTTP/1.0\r\nConnection: keep-alive\r\n\r\n"),
        ("HTTP/1.1", "GET /health HTTP/1.1\r\nHost: x\r\n\r\n"),
    ])
    func aRequestKeepingItsConnectionKeepsIt(asking: String, request: String) async throws {
        try await RawConnection.withServer(idleTimeout: .seconds(30), requestTimeout: .seconds(60)) { channel, _, _ in
            let answers = ReadRecorder()
            try await channel.pipeline.addHandler(answers).get()
            for _ in 0..<2 {
                let start = answers.count
                try await channel.writeAndFlush(ByteBuffer(string: request)).get()
                _ = try await answers.waitForAnswer(after: start)
            }
            try await Task.sleep(for: .milliseconds(300))
            #expect(channel.isActive, "\(asking): the server closed the connection")
            #expect(answers.okAnswers == 2, "\(asking): \(answers.text)")
            #expect(!answers.text.lowercased().contains("connection: close"), "\(asking): \(answers.text)")
        }
    }
}
