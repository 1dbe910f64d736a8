import EventStore
import EventStoreTesting
import Foundation
import Prometheus
import Testing
@testable import subledger

/// `serve` compares its clock, which stamps `recorded_at`, with PostgreSQL's at start-up and warns
/// when they differ (multi-instance walkthrough: an instance 5 s behind put a transfer's unlink
/// before its link, and `as_of` listed the chain under two users).
@Suite("Clock skew against PostgreSQL at start-up")
struct ClockSkewStartupTests {
    @Test(arguments: TestDatabases.dialects)
    func aClockFiveSecondsAheadIsToldAndOneInStepIsNot(_ dialect: StorageDialect) async throws {
        try await withFreshStore(dialect, now: { Date().addingTimeInterval(5) }) { (fixture: StoreFixture) async throws in
            let log = CapturedLog()
            let state = await ClockSkewMonitor(store: fixture.store, registry: PrometheusCollectorRegistry(), logger: log.logger).check(after: .init())
            switch dialect {
            case .postgres:
                // Each reading is right to within its own round trip, which a loaded machine makes long.
                let reading = try #require(try await fixture.store.readServerClock())
                #expect(ClockReading(aheadOfServerMicros: reading.aheadOfServerMicros - 5_000_000, uncertaintyMicros: reading.uncertaintyMicros).differs(byMoreThan: 500_000) == false, "\(reading)")
                #expect(log.lines.count == 1)
                let line = try #require(log.lines.first)
                #expect(line.hasPrefix("warning this machine's clock is "), "\(line)")
                #expect(line.contains(" ms ahead of PostgreSQL's: events are stamped with this clock"), "\(line)")
                let logged = try #require(Self.loggedReading(line), "\(line)")
                #expect(ClockReading(aheadOfServerMicros: logged.aheadOfServerMicros - 5_000_000, uncertaintyMicros: logged.uncertaintyMicros).differs(byMoreThan: 500_000) == false, "\(line)")
                #expect(state?.skewed == true)
            case .sqlite:
                #expect(try await fixture.store.readServerClock() == nil)
                #expect(state == nil, "the monitor goes on where there is no other clock")
                #expect(log.lines.isEmpty)
            }
        }
        try await withFreshStore(dialect) { (fixture: StoreFixture) async throws in
            let log = CapturedLog()
            _ = await ClockSkewMonitor(store: fixture.store, registry: PrometheusCollectorRegistry(), logger: log.logger).check(after: .init())
            #expect(log.lines.isEmpty, "\(log.lines)")
            if dialect == .postgres {
                // The test server runs on this machine, so on this clock.
                let reading = try #require(try await fixture.store.readServerClock())
                #expect(!reading.differs(byMoreThan: 100_000), "\(reading)")
            }
        }
    }

    /// A difference the round trip could hide is not told; a clock behind the server's says so.
    @Test func onlyADifferenceBeyondToleranceAndUncertaintyIsTold() throws {
        #expect(ClockSkewMonitor.warning(ClockReading(aheadOfServerMicros: 99_000, uncertaintyMicros: 0)) == nil)
        #expect(ClockSkewMonitor.warning(ClockReading(aheadOfServerMicros: 150_000, uncertaintyMicros: 60_000)) == nil)
        let behind = try #require(ClockSkewMonitor.warning(ClockReading(aheadOfServerMicros: -2_500_000, uncertaintyMicros: 1_000)))
        #expect(behind.hasPrefix("this machine's clock is 2500 ms behind PostgreSQL's"))
        let ahead = try #require(ClockSkewMonitor.warning(ClockReading(aheadOfServerMicros: 101_000, uncertaintyMicros: 0)))
        #expect(ahead.hasPrefix("this machine's clock is 101 ms ahead of PostgreSQL's"))
    }

    /// The reading a warning's metadata gives, to the millisecond.
    private static func loggedReading(_ line: String) -> ClockReading? {
        func value(_ key: String) -> Int64? {
            guard let range = line.range(of: "\(key)=") else { return nil }
            return Int64(line[range.upperBound...].prefix { $0 == "-" || $0.isNumber })
        }
        guard let ahead = value("clock_ahead_of_server_ms"), let uncertainty = value("uncertainty_ms") else { return nil }
        // Both were cut to whole milliseconds: allow one more.
        return ClockReading(aheadOfServerMicros: ahead * 1000, uncertaintyMicros: (uncertainty + 1) * 1000)
    }
}
