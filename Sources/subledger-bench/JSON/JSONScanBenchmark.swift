import AppStore
import ArgumentParser
import Foundation

/// `subledger-bench json`: what reading a request body costs, per body, on one core.
///
/// Every accepted body is decoded by Foundation's `JSONDecoder` and then scanned by
/// `JSONSyntaxFault.findAccepting` for what the decoder lets pass (a trailing comma, a name given
/// twice). Small bodies are what Apple and clients send; the 1 MiB shapes are the worst a
/// client within the body limit can send, and bound the CPU one such request can take.
struct JSONScanBenchmark: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "json",
        abstract: "Measure the decode and the strictness scan of request bodies, per body, on one core."
    )

    @Option(help: "Seconds to run each measurement.")
    var seconds: Double = 2

    func validate() throws {
        guard seconds > 0 else { throw ValidationError("--seconds must be positive") }
    }

    /// The fields a client submission decodes; the rest of a body is read and skipped.
    struct Submission: Decodable {
        let user_id: String
        let signed_transaction: String
    }

    func run() async throws {
        let duration = Duration.milliseconds(Int64(seconds * 1000))
        let limit = 1 << 20
        print("Request body reading, one core, per body (the body limit is \(limit.formatted()) bytes)")
        print("  \("body".padding(toLength: 36, withPad: " ", startingAt: 0)) \("bytes".leftPadded(9))  \("decode".leftPadded(10))  \("scan".leftPadded(10))")
        for (name, body) in Self.bodies(limit: limit) {
            // Both must accept the body, or the figures would time an early refusal.
            _ = try JSONDecoder().decode(Submission.self, fromUntrusted: body)
            if let fault = JSONSyntaxFault.findAccepting(body) {
                throw ValidationError("the \(name) body was refused by the scan: \(fault)")
            }
            let decode = try await Throughput.measure(for: duration) { _ in
                _ = try JSONDecoder().decode(Submission.self, fromUntrusted: body)
            }
            let scan = try await Throughput.measure(for: duration) { _ in
                _ = JSONSyntaxFault.findAccepting(body)
            }
            print("  \(name.padding(toLength: 36, withPad: " ", startingAt: 0)) \(body.count.formatted().leftPadded(9))  \(Self.perBody(decode).leftPadded(10))  \(Self.perBody(scan).leftPadded(10))")
        }
    }

    /// A submission of the usual size, then bodies just under `limit`: many small objects, one
    /// object of many names, both again with escaped names, and one long string.
    static func bodies(limit: Int) -> [(String, Data)] {
        let token = String(repeating: "eyJhbGciOiJFUzI1NiJ9", count: 200)
        let usual = Data(#"{"user_id":"u-1","signed_transaction":"\#(token)"}"#.utf8)
        let head = #"{"user_id":"u-1","signed_transaction":"t","pad":["#
        var objects = head
        var index = 0
        while objects.utf8.count < limit - 64 {
            objects += (index == 0 ? "" : ",") + #"{"a":\#(index),"b":true}"#
            index += 1
        }
        objects += "]}"
        var names = #"{"user_id":"u-1","signed_transaction":"t""#
        index = 0
        while names.utf8.count < limit - 64 {
            names += #","name\#(index)":\#(index)"#
            index += 1
        }
        names += "}"
        // Names with an escape are decoded to be compared, so they cost the scan more.
        var escapedNames = #"{"user_id":"u-1","signed_transaction":"t""#
        index = 0
        while escapedNames.utf8.count < limit - 64 {
            escapedNames += #","\u00e9\#(index)":\#(index)"#
            index += 1
        }
        escapedNames += "}"
        var escapedObjects = head
        index = 0
        while escapedObjects.utf8.count < limit - 64 {
            escapedObjects += (index == 0 ? "" : ",") + #"{"\u0061":\#(index),"\u00e9":true}"#
            index += 1
        }
        escapedObjects += "]}"
        let string = #"{"user_id":"u-1","signed_transaction":"\#(String(repeating: "x", count: limit - 64))"}"#
        return [
            ("a usual submission", usual),
            ("1 MiB of small objects", Data(objects.utf8)),
            ("1 MiB: one object of many names", Data(names.utf8)),
            ("1 MiB: small objects, escaped names", Data(escapedObjects.utf8)),
            ("1 MiB: many escaped names", Data(escapedNames.utf8)),
            ("1 MiB: one long string", Data(string.utf8)),
        ]
    }

    /// Microseconds or milliseconds per body.
    static func perBody(_ rate: Throughput) -> String {
        let micros = 1e6 / max(rate.perSecond, 1e-9)
        return micros >= 1000
            ? "\((micros / 1000).formatted(.number.precision(.fractionLength(1)))) ms"
            : "\(micros.formatted(.number.precision(.fractionLength(1)))) µs"
    }
}

extension String {
    fileprivate func leftPadded(_ width: Int) -> String {
        String(repeating: " ", count: max(0, width - count)) + self
    }
}
