import AppStore
import AppStoreTesting
import ArgumentParser
import Foundation

/// `subledger-bench verify`: measures JWS verifications per second on one core.
///
/// Scenarios: (a) a signed transaction with a warm chain cache, (b) the same with the cache
/// disabled (full RFC 5280 chain validation every time), (c) a full V2 notification (outer JWS
/// plus nested transaction and renewal info). The test PKI uses P-384 for its root and
/// intermediate, like Apple's chain, so (b) costs what a real cold verification costs.
/// `--export DIR` writes the transaction set and the root so
/// `scripts/bench-python-verifier.py` can time Apple's Python library on the same input.
struct VerifyBenchmark: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "verify",
        abstract: "Measure App Store JWS verifications per second on one core."
    )

    @Option(help: "Seconds to run each scenario.")
    var seconds: Double = 3

    @Option(help: "Number of distinct signed transactions in the set.")
    var count: Int = 1000

    @Option(help: "Write the JWS set and the test root to this directory (for the Python comparison).")
    var export: String?

    @Option(help: "Scenarios to run: a, b, c, d or any combination (e.g. ac).")
    var scenarios: String = "abcd"

    @Flag(help: "Print the figures as JSON.")
    var json = false

    @Flag(help: "In (c), also check the nested JWS's own signatures (apple.check_nested_signatures).")
    var checkNestedSignatures = false

    func validate() throws {
        guard seconds > 0, count > 0 else {
            throw ValidationError("--seconds and --count must be positive")
        }
    }

    func run() async throws {
        // The clock is read here, at the edge: the verifier itself only sees `now`.
        let now = Date()
        let set = try VerifyBenchmarkSet(count: count)
        if let export {
            try set.export(to: URL(fileURLWithPath: export))
            FileHandle.standardError.write(Data("exported \(set.transactions.count) transactions to \(export)\n".utf8))
        }

        let warm = try set.makeVerifier(chainCacheCapacity: 64, checksNestedSignatures: checkNestedSignatures)
        let cold = try set.makeVerifier(chainCacheCapacity: 0)
        let duration = Duration.milliseconds(Int64(seconds * 1000))

        let transactions = set.transactions
        let notifications = set.notifications
        var results: [(String, Throughput)] = []
        if scenarios.contains("a") {
            let rate = try await Throughput.measure(for: duration) { index in
                _ = try await warm.verifyTransaction(transactions[index % transactions.count], now: now)
            }
            results.append(("a_transaction_warm_cache", rate))
        }
        if scenarios.contains("b") {
            let rate = try await Throughput.measure(for: duration) { index in
                _ = try await cold.verifyTransaction(transactions[index % transactions.count], now: now)
            }
            results.append(("b_transaction_cache_disabled", rate))
        }
        if scenarios.contains("c") {
            let rate = try await Throughput.measure(for: duration) { index in
                _ = try await warm.verifyNotification(signedPayload: notifications[index % notifications.count], now: now)
            }
            results.append(("c_notification_warm_cache", rate))
        }
        if scenarios.contains("d") {
            // (c) as the webhook receives it: the JSON body around the JWS is read too.
            let bodies = try notifications.map { try TestPKI.notificationBody(signedPayload: $0) }
            let rate = try await Throughput.measure(for: duration) { index in
                _ = try await warm.verifyNotificationBody(bodies[index % bodies.count], now: now)
            }
            results.append(("d_notification_body_warm_cache", rate))
        }
        if json {
            let object = Dictionary(uniqueKeysWithValues: results.map { ($0.0, $0.1.perSecond.rounded()) })
            let data = try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .prettyPrinted])
            print(String(decoding: data, as: UTF8.self))
        } else {
            print("App Store JWS verification, one core, \(transactions.count) distinct tokens")
            for (name, rate) in results {
                print("  \(name.padding(toLength: 30, withPad: " ", startingAt: 0)) \(rate.formatted)")
            }
        }
    }
}
