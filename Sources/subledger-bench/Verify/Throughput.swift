/// Counts how many times an operation completes within a duration, sequentially (one core).
struct Throughput: Sendable {
    /// Completed operations.
    let operations: Int
    /// Wall time spent.
    let elapsed: Duration

    /// Operations per second.
    var perSecond: Double {
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        return seconds > 0 ? Double(operations) / seconds : 0
    }

    /// `12,345 verifications/s (37,035 in 3.00 s)`.
    var formatted: String {
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        return "\(Int(perSecond.rounded()).formatted()) verifications/s (\(operations.formatted()) in \(seconds.formatted(.number.precision(.fractionLength(2)))) s)"
    }

    /// Runs `operation(index)` back to back (after a short warm-up) until `duration` has elapsed.
    static func measure(for duration: Duration, _ operation: (Int) async throws -> Void) async throws -> Throughput {
        for index in 0..<100 {
            try await operation(index)
        }
        let clock = ContinuousClock()
        let start = clock.now
        var operations = 0
        // Check the clock every 64 operations so reading it does not weigh on the result.
        while clock.now - start < duration {
            for _ in 0..<64 {
                try await operation(operations)
                operations += 1
            }
        }
        return Throughput(operations: operations, elapsed: clock.now - start)
    }
}
