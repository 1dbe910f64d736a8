import Testing
@testable import subledger

/// The progress line of long jobs (`audit verify`, `replay`).
struct ProgressPrinterTests {
    @Test func aLineShowsTheShareTheRateAndWhatIsLeft() {
        let line = ProgressPrinter.line(label: "audit", done: 12_000, total: 50_000, unit: "events", elapsed: .seconds(2))
        #expect(line == "audit: 12000/50000 events (24%), 6000 events/s, ETA 7s")
    }

    /// The total is counted when the job starts; events appended while it runs take it past that,
    /// which showed as more than 100%.
    @Test func aCountPastTheTotalCountedAtTheStartIsNotAShareAbove100Percent() {
        let line = ProgressPrinter.line(label: "audit", done: 50_010, total: 50_000, unit: "events", elapsed: .seconds(5))
        #expect(line == "audit: 50010 events (50000 when it started; more came since), 10002 events/s")
        #expect(!line.contains("%"))
    }

    /// Off a terminal a long job prints one line every 5 s, not one per event, and always its end.
    @Test func theThrottlePrintsTheFirstUpdateThenOnePerIntervalAndAlwaysTheEnd() {
        let throttle = ThrottleProbe(interval: .seconds(5))
        #expect(throttle.admits(1, after: .zero))
        #expect(!throttle.admits(2, after: .seconds(1)))
        #expect(!throttle.admits(50, after: .milliseconds(4_999)))
        #expect(throttle.admits(60, after: .seconds(5)))
        // The interval counts from the last printed update, not the first.
        #expect(!throttle.admits(70, after: .seconds(9)))
        // The end is printed at once, so the last line shows the whole job.
        #expect(throttle.admits(100, after: .milliseconds(9_001)))
    }

    /// A job that passes the total counted at its start (events appended meanwhile) never reaches
    /// `done == total` again, so those updates are throttled like the others, not all printed.
    @Test func updatesPastTheTotalAreThrottledLikeAnyOther() {
        let throttle = ThrottleProbe(interval: .milliseconds(200))
        #expect(throttle.admits(100, after: .zero))
        let printed = (101...1_100).filter { throttle.admits($0, after: .microseconds($0)) }
        #expect(printed.isEmpty)
        #expect(throttle.admits(1_101, after: .milliseconds(200)))
    }
}

/// A throttle fed the updates of a 100-unit job at times counted from one start.
private final class ThrottleProbe {
    private var throttle: ProgressThrottle
    private let start = ContinuousClock.now

    init(interval: Duration) {
        throttle = ProgressThrottle(interval: interval)
    }

    func admits(_ done: Int, after elapsed: Duration) -> Bool {
        throttle.admits(done: done, total: 100, at: start + elapsed)
    }
}
