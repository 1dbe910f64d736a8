/// Decides which progress updates are printed: at most one per interval, and always the last one.
///
/// A value apart from ``ProgressPrinter`` so the rule is tested with instants of a test's choosing.
struct ProgressThrottle: Sendable {
    /// The shortest time between two printed updates.
    let interval: Duration
    private var lastPrint: ContinuousClock.Instant?

    init(interval: Duration) {
        self.interval = interval
    }

    /// Whether the update of `done` of `total` at `now` is printed; records it when so.
    ///
    /// The first update is printed, and one that reaches the total exactly (the job's end), however
    /// soon after the one before; a count past the total (events appended while the job runs) is
    /// throttled like any other, so a job that outruns its total does not print at every event.
    mutating func admits(done: Int, total: Int, at now: ContinuousClock.Instant) -> Bool {
        if let last = lastPrint, now - last < interval, done != total { return false }
        lastPrint = now
        return true
    }
}
