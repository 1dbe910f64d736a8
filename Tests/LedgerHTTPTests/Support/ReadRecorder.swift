import Foundation
import NIOCore
import Synchronization
import Testing

/// Records what a raw test connection reads, one entry per read from the socket.
final class ReadRecorder: ChannelInboundHandler, Sendable {
    typealias InboundIn = ByteBuffer
    private let chunks = Mutex<[String]>([])

    var count: Int { chunks.withLock { $0.count } }

    /// Everything the connection has read.
    var text: String { chunks.withLock { $0.joined() } }

    /// Whether what the connection has read ends with `suffix`, looking only at the last few reads
    /// (enough for a suffix of up to 8 bytes) rather than joining everything.
    func endsWith(_ suffix: String) -> Bool {
        chunks.withLock { $0.suffix(8).joined().hasSuffix(suffix) }
    }

    /// How many `200` status lines the connection has read.
    var okAnswers: Int { text.components(separatedBy: "HTTP/1.1 200").count - 1 }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let text = String(buffer: unwrapInboundIn(data))
        chunks.withLock { $0.append(text) }
    }

    /// Waits until the reads after the first `start` hold a whole answer (its `Content-Length` bytes
    /// of body), and says in how many reads it came. A timeout names the line that waited, since a
    /// test often waits on several connections.
    func waitForAnswer(after start: Int, sourceLocation: SourceLocation = #_sourceLocation) async throws -> (reads: Int, text: String) {
        let deadline = ContinuousClock.now + ReadTimeout.limit
        while ContinuousClock.now < deadline {
            let received = chunks.withLock { Array($0.dropFirst(start)) }
            let text = received.joined()
            if let split = text.range(of: "\r\n\r\n"),
               let lengthLine = text[..<split.lowerBound].split(separator: "\r\n").first(where: { $0.lowercased().hasPrefix("content-length:") }),
               let length = Int(lengthLine.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces)),
               text[split.upperBound...].utf8.count >= length {
                return (received.count, text)
            }
            try await Task.sleep(for: .milliseconds(2))
        }
        throw ReadTimeout(received: chunks.withLock { $0.dropFirst(start).joined() }, waiter: sourceLocation)
    }

    /// Waits until what the connection has read contains `text`, and returns everything read then.
    func waitFor(_ text: String, sourceLocation: SourceLocation = #_sourceLocation) async throws -> String {
        let deadline = ContinuousClock.now + ReadTimeout.limit
        while ContinuousClock.now < deadline {
            let read = self.text
            if read.contains(text) { return read }
            try await Task.sleep(for: .milliseconds(2))
        }
        throw ReadTimeout(received: self.text, waiter: sourceLocation)
    }

    /// No whole answer within `limit`; says who waited and what had come, so a failure shows which
    /// answer was missing.
    struct ReadTimeout: Error, CustomStringConvertible {
        static let limit = Duration.seconds(10)
        var received: String
        var waiter: SourceLocation

        var description: String {
            "no whole answer within \(Self.limit) at \(waiter); read \(received.utf8.count) bytes: \(received.prefix(300).debugDescription)"
        }
    }
}
