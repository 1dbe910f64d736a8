import AppStoreTesting
import EventStoreTesting
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Ledger
import LedgerHTTP
import Logging
import NIOCore
import NIOPosix
import Synchronization
import Testing

/// The request id reaches the response and the log lines of the request, written by `LineLogHandler`.
struct RequestLogTests {
    /// Runs `body` against a live server on a fresh SQLite store; `lines()` returns the log lines written so far.
    static func withLoggedServer(
        policy: LedgerConfiguration.LinkPolicy = .transfer,
        verifyReceiptURL: String = "http://127.0.0.1:9",
        level: Logger.Level = .info,
        _ body: @Sendable @escaping (any TestClientProtocol, TestPKI, @Sendable () -> [String]) async throws -> Void
    ) async throws {
        let lines = Mutex<[String]>([])
        let logger = {
            var logger = Logger(label: "test", factory: { LineLogHandler(label: $0, sink: { line in lines.withLock { $0.append(line) } }) })
            logger.logLevel = level
            return logger
        }()
        let pki = try APIHarness.pki.get()
        try await withFreshStore(.sqlite) { fixture in
            let app = try APIHarness.application(
                store: fixture.store, pki: pki, clock: ManualClock(Day.date(1)), verifyReceiptURL: verifyReceiptURL,
                policy: policy, logger: logger
            )
            try await app.test(.live) { client in try await body(client, pki, { lines.withLock { $0 } }) }
        }
    }

    @Test func aRequestsLogLineCarriesItsRequestIDOfferedOrGenerated() async throws {
        try await Self.withLoggedServer { client, _, lines in
            let offered = try await client.execute(
                uri: "/v1/users/u1/entitlements", method: .get,
                headers: [.authorization: "Bearer wrong", HTTPField.Name("X-Request-ID")!: "trace-42"]
            )
            #expect(offered.status == .unauthorized)
            #expect(offered.headers[HTTPField.Name("X-Request-ID")!] == "trace-42")

            let generated = try await client.execute(uri: "/v1/users/u2/entitlements", method: .get, headers: [.authorization: "Bearer wrong"])
            let id = try #require(generated.headers[HTTPField.Name("X-Request-ID")!])
            #expect(id.count >= 16 && id != "trace-42")

            let failures = lines().filter { $0.contains("request failed") }
            #expect(failures.count == 2)
            #expect(failures.contains { $0.contains("request_id=trace-42") && $0.contains("code=unauthorized") && $0.contains(" info test :") })
            #expect(failures.contains { $0.contains("request_id=\(id) ") })
            // Which endpoint failed, by its route's template: the user id in the path stays out.
            #expect(failures.allSatisfy { $0.contains("method=GET ") && $0.contains("route=/v1/users/{user_id}/entitlements ") }, "\(failures)")
            // One id a line, under one name.
            #expect(failures.allSatisfy { !$0.contains("hb.request.id") })
            // The error as `code: detail`, not Swift's dump of the problem's fields.
            #expect(failures.allSatisfy { $0.contains("unauthorized: ") && !$0.contains("Problem(") }, "\(failures)")
        }
    }

    /// A client's fault is logged as the client was told it: a 413 at the body limit named Swift's
    /// NIOTooManyBytesError and a byte count the client was not told.
    @Test func aClientsFaultIsLoggedInTheWordsItWasTold() async throws {
        let lines = Mutex<[String]>([])
        let logger = Logger(label: "test", factory: { LineLogHandler(label: $0, sink: { line in lines.withLock { $0.append(line) } }) })
        let router = Router(context: LedgerRequestContext.self)
        router.addMiddleware {
            RequestIDMiddleware()
            ProblemMiddleware()
        }
        // A body over the limit, as a chunked request's is found to be at the limit.
        router.post("/x") { request, _ -> String in
            _ = try await request.body.collect(upTo: 4)
            return "read"
        }
        try await Application(router: router, logger: logger).test(.router) { client in
            let large = try await client.execute(uri: "/x", method: .post, body: ByteBuffer(string: "0123456789"))
            #expect(large.status == .contentTooLarge)
        }
        let failure = try #require(lines.withLock { $0 }.first { $0.contains("request failed") })
        #expect(failure.contains(#"error="payload_too_large: request bodies are limited to 1048576 bytes""#), "\(failure)")
        #expect(!failure.contains("NIOTooManyBytesError"))
    }

    /// An operator's grant and revoke each leave an info line naming the user, the grant and the key,
    /// under the request's id; a repeated revoke, which records nothing, leaves none.
    @Test func grantsAndRevokesAreLoggedWithTheRequestAndTheKey() async throws {
        try await Self.withLoggedServer { client, _, lines in
            let headers: HTTPFields = [.authorization: "Bearer \(APIHarness.adminKey)", .contentType: "application/json", HTTPField.Name("X-Request-ID")!: "grant-1"]
            let granted = try await client.execute(
                uri: "/v1/users/u1/grants", method: .post, headers: headers,
                body: ByteBuffer(string: #"{"entitlement":"pro","expires_at":"\#(Day.iso(30))","reason":"support"}"#)
            )
            #expect(granted.status == .created)
            let grantId = try #require((try JSONSerialization.jsonObject(with: Data(buffer: granted.body)) as? [String: Any])?["grant_id"] as? String)
            var revoking = headers
            revoking[HTTPField.Name("X-Request-ID")!] = "revoke-1"
            for _ in 0..<2 {
                let revoked = try await client.execute(
                    uri: "/v1/users/u1/grants/\(grantId)/revoke", method: .post, headers: revoking, body: ByteBuffer(string: #"{"reason":"mistake"}"#)
                )
                #expect(revoked.status == .ok)
            }
            let recorded = lines().filter { $0.contains("grant recorded") }
            #expect(recorded.count == 1, "\(lines())")
            #expect(recorded.allSatisfy { $0.contains("request_id=grant-1") && $0.contains("grant=\(grantId)") && $0.contains("api_key=operator") && $0.contains("user=u1") })
            let revokedLines = lines().filter { $0.contains("grant revoked") }
            #expect(revokedLines.count == 1, "\(lines())")
            #expect(revokedLines.allSatisfy { $0.contains("request_id=revoke-1") && $0.contains("entitlement=pro") && $0.contains("api_key=operator") })
        }
    }

    /// An offered id that could forge fields on a log line (a space, a quote) is replaced by a new one.
    @Test func anOfferedIDThatCouldForgeLogFieldsIsReplaced() async throws {
        try await Self.withLoggedServer { client, _, lines in
            let forged = "x status=200 [LedgerHTTP] ok"
            let response = try await client.execute(uri: "/nowhere", method: .get, headers: [HTTPField.Name("X-Request-ID")!: forged])
            #expect(response.status == .notFound)
            let id = try #require(response.headers[HTTPField.Name("X-Request-ID")!])
            #expect(id != forged && !id.contains(" "))
            #expect(!lines().contains { $0.contains("request_id=x ") })
            #expect(lines().contains { $0.contains("request_id=\(id) ") && $0.contains("code=not_found") })
        }
    }

    /// A client that closes its connection before its body is complete failed, not the server: the
    /// request is logged (and counted) as a 400 `malformed_request`, never as a 500.
    @Test func aClientThatClosesMidBodyIsLoggedAsItsOwnError() async throws {
        try await Self.withLoggedServer { client, _, lines in
            let port = try #require(client.port)
            let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton).connect(host: "127.0.0.1", port: port).get()
            let head = "POST /v1/apple/notifications/v2 HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{\"signed"
            try await channel.writeAndFlush(ByteBuffer(string: head)).get()
            // Time for the server to read the head on a loaded machine before the connection ends.
            try await Task.sleep(for: .milliseconds(500))
            try await channel.close()
            var failed: [String] = []
            for _ in 0..<50 where failed.isEmpty {
                try await Task.sleep(for: .milliseconds(100))
                failed = lines().filter { $0.contains("request failed") }
            }
            #expect(failed.count == 1)
            #expect(failed.first?.contains("code=malformed_request") == true, "\(failed)")
            #expect(failed.first?.contains("status=400") == true, "\(failed)")
            // In words an operator can act on; it read "stream ended at an unexpected time".
            #expect(failed.first?.contains("the request could not be read: the connection ended before the request did") == true, "\(failed)")
        }
    }

    /// An accepted write is logged at debug level, with what the client was answered: a webhook's
    /// event id and position, a submission's user. At the default level (info) it writes no line.
    @Test(arguments: [Logger.Level.debug, .info])
    func anAcceptedWriteIsLoggedAtDebugLevel(_ level: Logger.Level) async throws {
        try await Self.withLoggedServer(level: level) { client, pki, lines in
            let jws = try pki.signNotification(
                type: .subscribed, subtype: .initialBuy, bundleId: APIHarness.bundleId,
                transaction: APIHarness.transaction("1000", purchased: 0, expires: 30), signedDate: Day.apple(0)
            )
            var answers: [[String: Any]] = []
            for id in ["trace-first", "trace-again"] {
                let response = try await client.execute(
                    uri: "/v1/apple/notifications/v2", method: .post,
                    headers: [.contentType: "application/json", HTTPField.Name("X-Request-ID")!: id],
                    body: ByteBuffer(string: #"{"signedPayload":"\#(jws)"}"#)
                )
                #expect(response.status == .ok)
                answers.append(try #require(try JSONSerialization.jsonObject(with: Data(buffer: response.body)) as? [String: Any]))
            }
            let submitted = try await client.execute(
                uri: "/v1/apple/transactions", method: .post,
                headers: [.authorization: "Bearer \(APIHarness.ingestKey)", .contentType: "application/json", HTTPField.Name("X-Request-ID")!: "trace-submit"],
                body: ByteBuffer(string: #"{"user_id":"alice","signed_transaction":"\#(try pki.signTransaction(APIHarness.transaction("1001", original: "2000", purchased: 0, expires: 30)))"}"#)
            )
            #expect(submitted.status == .ok)
            let ingested = lines().filter { $0.hasSuffix("] ingested\n") || $0.hasSuffix("] ingested") }
            guard level == .debug else {
                #expect(ingested.isEmpty, "\(ingested)")
                return
            }
            #expect(ingested.count == 3, "\(lines())")
            let eventID = try #require(answers.first?["event_id"] as? String)
            let position = try #require(answers.first?["position"] as? Int)
            for (index, (id, result)) in [("trace-first", "recorded"), ("trace-again", "duplicate")].enumerated() {
                let line = try #require(ingested.first { $0.contains("request_id=\(id) ") }, "\(ingested)")
                #expect(line.contains("result=\(result) "), "\(line)")
                #expect(line.contains("event_id=\(eventID) ") && line.contains("position=\(position) "), "\(line)")
                #expect(line.contains(#"endpoint="POST /v1/apple/notifications/v2""#), "\(line)")
                #expect(answers[index]["result"] as? String == result)
            }
            let submission = try #require(ingested.first { $0.contains("request_id=trace-submit ") }, "\(ingested)")
            #expect(submission.contains("result=recorded ") && submission.contains("user_id=alice "), "\(submission)")
        }
    }

    /// A line the ledger writes while serving a request (a claim the `keep` policy refuses) carries
    /// the request's id too.
    @Test func theLedgersOwnLinesCarryTheRequestID() async throws {
        try await Self.withLoggedServer(policy: .keep) { client, pki, lines in
            let jws = try pki.signTransaction(APIHarness.transaction("1000", purchased: 0, expires: 30))
            for (user, id) in [("alice", "trace-alice"), ("bob", "trace-bob")] {
                _ = try await client.execute(
                    uri: "/v1/apple/transactions", method: .post,
                    headers: [.authorization: "Bearer \(APIHarness.ingestKey)", .contentType: "application/json", HTTPField.Name("X-Request-ID")!: id],
                    body: ByteBuffer(string: #"{"user_id":"\#(user)","signed_transaction":"\#(jws)"}"#)
                )
            }
            let refused = lines().filter { $0.contains("claim refused") }
            #expect(refused.count == 1)
            #expect(refused.first?.contains("request_id=trace-bob") == true)
        }
    }

    /// verifyReceipt's retry warnings are written for the request that caused them: Apple's fake
    /// answers this receipt with the transient status 21005 both times, so the answer is 502.
    @Test func verifyReceiptRetriesCarryTheRequestID() async throws {
        try await FakeVerifyReceipt.run { url in
            try await Self.withLoggedServer(verifyReceiptURL: url) { client, _, lines in
                let response = try await client.execute(
                    uri: "/v1/apple/receipts", method: .post,
                    headers: [.authorization: "Bearer \(APIHarness.ingestKey)", .contentType: "application/json", HTTPField.Name("X-Request-ID")!: "trace-receipt"],
                    body: ByteBuffer(string: #"{"user_id":"u1","receipt_data":"flaky-receipt"}"#)
                )
                #expect(response.status == .badGateway)
                let retries = lines().filter { $0.contains("verifyReceipt transient failure") }
                #expect(retries.count == 2)
                #expect(retries.allSatisfy { $0.contains("request_id=trace-receipt") })
            }
        }
    }

    @Test func aLineHasTimeLevelLabelSortedMetadataAndMessage() {
        let date = Date(timeIntervalSince1970: 1_795_435_200.25)
        let line = LineLogHandler.line(
            date: date, level: .notice, label: "subledger", metadata: ["z": "last", "a": "first"], source: "Ledger", message: "hello"
        )
        #expect(line == "2026-11-23T12:00:00.250Z notice subledger : a=first z=last [Ledger] hello\n")
    }

    /// Text a client sent can reach a line (quoted in an error); its line breaks cannot start a line.
    @Test func controlCharactersAreEscapedSoALineStaysOneLine() {
        let line = LineLogHandler.line(
            date: Date(timeIntervalSince1970: 1_795_435_200), level: .info, label: "subledger",
            metadata: ["error": "bad bundle id x\n2026-11-23T12:00:00.000Z critical subledger : forged"], source: "LedgerHTTP",
            message: "request\rfailed\u{1B}[2J"
        )
        #expect(line.filter { $0 == "\n" || $0 == "\r" }.count == 1)
        #expect(line.hasSuffix("\n"))
        #expect(line.contains(#"error="bad bundle id x\n2026-11-23T12:00:00.000Z critical"#))
        #expect(line.contains(#"[LedgerHTTP] request\rfailed\u{1b}[2J"#))
        // C1 controls and Unicode's line separators too; a backslash is escaped so a sent "\n" differs.
        func message(_ text: String) -> String {
            let line = LineLogHandler.line(date: Date(timeIntervalSince1970: 0), level: .info, label: "l", metadata: [:], source: "s", message: text)
            return String(line[(line.range(of: "[s] ")?.upperBound ?? line.startIndex)...].dropLast())
        }
        #expect(message("a\u{85}b\u{9B}c\u{2028}d\u{2029}e \\n café") == #"a\u{85}b\u{9b}c\u{2028}d\u{2029}e \\n café"#)
        #expect(message("plain café") == "plain café")
    }

    /// A value with spaces is quoted, so text a client sent cannot pass for fields of its own.
    @Test func aValueWithSpacesOrEqualsSignsIsQuotedSoItCannotForgeFields() {
        let line = LineLogHandler.line(
            date: Date(timeIntervalSince1970: 0), level: .warning, label: "l",
            metadata: ["error": #"unknown field "a status=200 request_id=forged""#, "request_id": "r1", "empty": "", "route": "/v1/events"],
            source: "s", message: "m"
        )
        #expect(line.contains(#" empty="" error="unknown field \"a status=200 request_id=forged\"" request_id=r1 route=/v1/events [s] m"#), "\(line)")
    }

    @Test func metadataFromTheProviderAndTheCallJoinTheLoggersOwn() {
        let lines = Mutex<[String]>([])
        let provider = Logger.MetadataProvider { ["provided": "p"] }
        var logger = Logger(label: "l", factory: { LineLogHandler(label: $0, metadataProvider: provider, sink: { line in lines.withLock { $0.append(line) } }) })
        logger[metadataKey: "own"] = "o"
        logger.debug("not written at the default info level")
        logger.warning("written", metadata: ["call": "c", "own": "overridden"])
        let written = lines.withLock { $0 }
        #expect(written.count == 1)
        #expect(written.first?.hasSuffix(" warning l : call=c own=overridden provided=p [LedgerHTTPTests] written\n") == true)
    }

    /// A `Logger` keeps a handler of up to three words inline; a larger one is boxed, and every
    /// request's copy that sets its id then allocated and copied a box.
    @Test func theHandlerFitsInALoggersInlineStorage() {
        #expect(MemoryLayout<LineLogHandler>.size <= 3 * MemoryLayout<Int>.size)
    }

    @Test func aProviderSetLaterIsUsedAndTheSinkKept() {
        let lines = Mutex<[String]>([])
        var handler = LineLogHandler(label: "l", sink: { line in lines.withLock { $0.append(line) } })
        handler.metadataProvider = Logger.MetadataProvider { ["provided": "p"] }
        let logger = Logger(label: "l", factory: { _ in handler })
        logger.info("written")
        #expect(lines.withLock { $0 }.first?.hasSuffix(" info l : provided=p [LedgerHTTPTests] written\n") == true)
    }
}
