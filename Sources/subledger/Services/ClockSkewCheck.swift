import EventStore

/// When this instance's clock and PostgreSQL's differ enough to say so (more than a tenth of a
/// second), and what to say; `ClockSkewMonitor` reads them at start-up and while `serve` runs.
///
/// Each instance stamps `recorded_at` with its own clock. When instances sharing a database are out
/// of step, an event can be stamped before one another instance recorded earlier: a transfer's
/// unlink before the link it undoes, so `as_of` moments between them list the chain under two users
/// (multi-instance walkthrough, with one clock 5 s behind). The database's clock is the one every
/// instance can be compared with; agreeing with it to a tenth of a second keeps any two instances
/// within a fifth.
enum ClockSkewCheck {
    /// The most the clocks may differ by without a warning, in microseconds.
    static let toleranceMicros: Int64 = 100_000
    /// How close they must surely be again, after a warning, to be said back in step: half the
    /// tolerance, so a clock hovering near it is not said apart and back every reading.
    static let backInStepMicros: Int64 = toleranceMicros / 2

    /// The warning a reading calls for, or nil when the clocks agree to within the tolerance (or the
    /// round trip was too slow to tell).
    static func warning(_ reading: ClockReading) -> String? {
        guard reading.differs(byMoreThan: toleranceMicros) else { return nil }
        let milliseconds = reading.aheadOfServerMicros.magnitude / 1000
        let direction = reading.aheadOfServerMicros > 0 ? "ahead of" : "behind"
        return """
            this machine's clock is \(milliseconds) ms \(direction) PostgreSQL's: events are stamped \
            with this clock, and instances sharing the database on clocks out of step record facts \
            out of order for as_of (a transfer's two ends, so a chain shows under two users); \
            synchronise the clocks (NTP)
            """
    }
}
