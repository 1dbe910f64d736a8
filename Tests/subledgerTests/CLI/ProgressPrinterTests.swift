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
}
