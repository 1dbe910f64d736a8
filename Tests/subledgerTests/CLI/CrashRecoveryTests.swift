import AppStore
import AppStoreTesting
import EventStore
import EventStoreTesting
import Foundation
import Synchronization
import Testing

/// `serve` killed in the middle of ingest (SIGKILL: no graceful stop; SQLite's write-ahead log left
/// as the kill found it, PostgreSQL's open transactions cut off) loses no fact it answered 200,
/// keeps each fact's link with it, and leaves a ledger whose hash chains and read models check clean.
@Suite("subledger serve killed mid-ingest")
struct CrashRecoveryTests {
    /// One input posted over HTTP: a V2 notification, or a client's submission linking a user.
    private enum Input: Sendable {
        case notification(Data)
        case submission(user: String, body: Data)

        var path: String {
            switch self {
            case .notification: "/v1/apple/notifications/v2"
            case .submission: "/v1/apple/transactions"
            }
        }

        var body: Data {
            switch self {
            case .notification(let body), .submission(_, let body): body
            }
        }
    }

    /// What the posters share: the inputs answered 200, how many posters have stopped, whether the
    /// server was killed, and how many posters' requests failed after it.
    private final class Posting: Sendable {
        private struct State {
            var answered: [Int] = []
            var stopped = 0
            var killed = false
            var cutOff = 0
        }

        private let state = Mutex(State())
        var answered: [Int] { state.withLock { $0.answered } }
        var stopped: Int { state.withLock { $0.stopped } }
        var killed: Bool { state.withLock { $0.killed } }
        var cutOff: Int { state.withLock { $0.cutOff } }
        func add(_ index: Int) { state.withLock { $0.answered.append(index) } }
        func stop() { state.withLock { $0.stopped += 1 } }
        func kill() { state.withLock { $0.killed = true } }
        func cut() { state.withLock { $0.cutOff += 1 } }
    }

    /// The URL of a new, empty database on the tests' PostgreSQL server.
    private static func privateDatabase() async throws -> String {
        let url = try #require(TestDatabases.postgresURL, "set SUBLEDGER_TEST_POSTGRES_URL (scripts/test does)")
        let name = "crash_\(UUID().uuidString.prefix(8).lowercased())"
        try await PostgresAdmin.createDatabase(name, url: url)
        return try PostgresAdmin.url(url, database: name)
    }

    @Test(arguments: TestDatabases.dialects)
    func aKilledServerKeepsEveryAnsweredFactAndItsLedgerChecksClean(_ dialect: StorageDialect) async throws {
        // The embedded file in the working directory, or a private PostgreSQL database.
        let database = dialect == .postgres ? ["SUBLEDGER_DATABASE_URL": try await Self.privateDatabase()] : [:]
        try await withTemporaryDirectory { directory in
            let pki = try TestPKI()
            let now = AppStoreDate(millisecondsSince1970: Int64(Date().timeIntervalSince1970 * 1000))
            // Even indexes are notifications of their own subscription, odd ones submissions that
            // link a user of their own (a fact and a link in one transaction).
            let inputs: [Input] = try (0..<400).map { index in
                if index.isMultiple(of: 2) {
                    return .notification(try pki.subscribedBody(transactionId: "\(10_000 + index)", at: now))
                }
                let transaction = try pki.signTransaction(.testSubscription(transactionId: "\(10_000 + index)", purchaseDate: now))
                return .submission(
                    user: "u\(index)", body: try JSONSerialization.data(withJSONObject: ["user_id": "u\(index)", "signed_transaction": transaction])
                )
            }
            @Sendable func post(_ input: Input, to base: String) async throws -> (status: Int, body: String, contentType: String?) {
                try await httpRequest(base + input.path, bearer: TestAPIKey.secret, method: .POST, json: input.body)
            }

            let (server, base) = try await serveTrustingTestPKI(pki, in: directory, environment: database)
            let posting = Posting()
            let posters = 16
            try await withThrowingTaskGroup(of: Void.self) { group in
                for poster in 0..<posters {
                    group.addTask {
                        defer { posting.stop() }
                        for index in stride(from: poster, to: inputs.count, by: posters) {
                            do {
                                let answer = try await post(inputs[index], to: base)
                                #expect(answer.status == 200, "input \(index): \(answer.body)")
                                if answer.status == 200 { posting.add(index) }
                            } catch {
                                // After the kill every poster's request fails, the one in flight or
                                // the next: its connection closed, or it was cancelled (the client's
                                // pool tries a refused connection again until its deadline).
                                if posting.killed {
                                    posting.cut()
                                } else {
                                    Issue.record("input \(index) failed before the kill: \(error)")
                                }
                                return
                            }
                        }
                    }
                }
                // Killed while the posters' requests are in flight, a quarter of the way in.
                while posting.answered.count < inputs.count / 4 {
                    try #require(posting.stopped < posters, "the posters stopped before a quarter of the inputs were answered")
                    try await Task.sleep(for: .milliseconds(2))
                }
                posting.kill()
                server.signal(SIGKILL)
                group.cancelAll()
                try await group.waitForAll()
            }
            #expect(try await server.waitForExit() == SIGKILL)
            let kept = posting.answered
            #expect(kept.count < inputs.count, "the kill came after every input was answered")
            // Every poster was still posting: the kill came in the middle of the ingest. (Whether a
            // request was in flight at that instant is up to timing: the kill follows a batch's
            // answers, when most posters are between requests.)
            #expect(posting.cutOff == posters, "\(posting.cutOff) of \(posters) posters were still posting at the kill")

            // Started again on the same file: every answered fact is there (a notification sent
            // again is a duplicate) with its link (the user is entitled), and what was not answered
            // can be sent again and is taken, once.
            let (restarted, again) = try await serveTrustingTestPKI(pki, in: directory, environment: database)
            for index in kept {
                switch inputs[index] {
                case .notification:
                    let answer = try await post(inputs[index], to: again)
                    #expect(answer.status == 200 && answer.body.contains(#""result":"duplicate""#), "input \(index): \(answer.body)")
                case .submission(let user, _):
                    let view = try await httpRequest(again + "/v1/users/\(user)/entitlements", bearer: TestAPIKey.secret)
                    #expect(view.body.contains(#""id":"pro""#) && view.body.contains(#""active":true"#), "input \(index): \(view.body)")
                }
            }
            for index in Set(inputs.indices).subtracting(kept).sorted() {
                #expect(try await post(inputs[index], to: again).status == 200, "input \(index)")
            }
            // Each fact once: 200 notifications and 200 transactions, each new subscription's.
            var types: [String] = []
            var cursor = ""
            while true {
                let feed = try await httpRequest(again + "/v1/events?limit=100" + cursor, bearer: TestAPIKey.secret)
                let page = try #require(try JSONSerialization.jsonObject(with: Data(feed.body.utf8)) as? [String: Any], "\(feed.body)")
                let events = try #require(page["events"] as? [[String: Any]], "\(feed.body)")
                types += events.compactMap { $0["type"] as? String }
                guard !events.isEmpty, let next = page["next_after"] as? String else { break }
                cursor = "&after=\(next)"
            }
            #expect(types.filter { $0 == "apple.notification.v2" }.count == 200)
            #expect(types.filter { $0 == "apple.transaction" }.count == 200)
            restarted.signal(SIGTERM)
            #expect(try await restarted.waitForExit() == 0)

            let audit = try await SubledgerProcess.run(["audit", "verify"], in: directory, environment: database)
            #expect(audit.status == 0, "\(audit.stdout)\(audit.stderr)")
            #expect(audit.stdout.contains("all hash chains are intact"), "\(audit.stdout)")
            let replay = try await SubledgerProcess.run(["replay", "--check"], in: directory, environment: database)
            #expect(replay.status == 0, "\(replay.stdout)\(replay.stderr)")
        }
    }
}
