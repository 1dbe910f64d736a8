import EventStore
import EventStoreTesting
import Foundation
import Prometheus
import Synchronization
import Testing
@testable import subledger

/// A clock that agreed with PostgreSQL's at start-up can drift while `serve` runs (NTP stopped, a
/// virtual machine resumed); `serve` read the clocks only at start-up, so such a drift went unsaid
/// while the instance stamped events out of order for `as_of`.
@Suite("Clock skew against PostgreSQL while serve runs")
struct ClockSkewMonitorTests {
    /// The monitor's readings, every 10 ms, on a clock the test moves 5 s ahead and back.
    @Test(.enabled(if: TestDatabases.dialects.contains(.postgres)))
    func aDriftIsToldOnceAsItBeginsAndAgainWhenItEnds() async throws {
        let offset = Mutex<TimeInterval>(0)
        try await withFreshStore(.postgres, now: { Date().addingTimeInterval(offset.withLock { $0 }) }) { (fixture: StoreFixture) async throws in
            let log = CapturedLog()
            let registry = PrometheusCollectorRegistry()
            let monitor = ClockSkewMonitor(store: fixture.store, registry: registry, logger: log.logger, interval: .milliseconds(10))
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { try await monitor.run() }
                try #require(await Self.eventually { Self.gauge(registry).map { abs($0) < 0.1 } ?? false }, "no reading in step")
                offset.withLock { $0 = 5 }
                try #require(await Self.eventually { Self.told(log).count == 1 }, "\(log.lines)")
                try #require(await Self.eventually { (Self.gauge(registry) ?? 0) > 4.5 }, "\(Self.gauge(registry) ?? .nan)")
                // Readings go on while it lasts; none of them says it again within the hour.
                try await Task.sleep(for: .milliseconds(150))
                #expect(Self.told(log).count == 1, "\(log.lines)")
                offset.withLock { $0 = 0 }
                try #require(await Self.eventually { Self.told(log).count == 2 }, "\(log.lines)")
                try #require(await Self.eventually { Self.gauge(registry).map { abs($0) < 0.1 } ?? false })
                group.cancelAll()
            }
            let told = Self.told(log)
            #expect(told.count == 2, "\(told)")
            #expect(told.first?.hasPrefix("warning this machine's clock is ") == true, "\(told)")
            #expect(told.first?.contains(" ms ahead of PostgreSQL's") == true, "\(told)")
            #expect(told.last?.hasPrefix("notice this machine's clock is back within 50 ms of PostgreSQL's") == true, "\(told)")
        }
    }

    /// A difference that lasts is told again every `repeatWarning` (not at every reading), so a log
    /// read later has it.
    @Test(.enabled(if: TestDatabases.dialects.contains(.postgres)))
    func aLastingDriftIsToldAgain() async throws {
        try await withFreshStore(.postgres, now: { Date().addingTimeInterval(-3) }) { (fixture: StoreFixture) async throws in
            let log = CapturedLog()
            let monitor = ClockSkewMonitor(
                store: fixture.store, registry: PrometheusCollectorRegistry(), logger: log.logger,
                interval: .milliseconds(10), repeatWarning: .seconds(2)
            )
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { try await monitor.run() }
                try #require(await Self.eventually { Self.told(log).count == 1 }, "\(log.lines)")
                // About ten readings within the repeat interval, none of them told (the interval
                // leaves a loaded machine nearly 2 s between the first warning's poll and this check).
                try await Task.sleep(for: .milliseconds(100))
                #expect(Self.told(log).count == 1, "\(log.lines)")
                try #require(await Self.eventually { Self.told(log).count >= 2 }, "\(log.lines)")
                group.cancelAll()
            }
            #expect(Self.told(log).allSatisfy { $0.contains(" ms behind PostgreSQL's") }, "\(log.lines)")
        }
    }

    /// After a warning, only a reading surely within half the tolerance says the clocks are back in
    /// step: one near the limit, or one whose round trip hid too much, changes nothing (else a clock
    /// hovering at 100 ms, or one slow reading, made the log say apart and back every minute).
    @Test func onlyAReadingSurelyBackInStepEndsAWarning() throws {
        let start = ContinuousClock.now
        let hour = Duration.seconds(3600)
        func reading(_ ahead: Int64, _ uncertainty: Int64 = 1_000) -> ClockReading {
            ClockReading(aheadOfServerMicros: ahead, uncertaintyMicros: uncertainty)
        }
        // Not warned: near the limit, or too slow to tell, says nothing.
        #expect(ClockSkewMonitor.next(after: .init(), reading: reading(95_000), at: start, repeatWarning: hour).1 == nil)
        #expect(ClockSkewMonitor.next(after: .init(), reading: reading(150_000, 80_000), at: start, repeatWarning: hour).1 == nil)
        // Apart: told once, not again within the hour, again after it.
        let (apart, told) = ClockSkewMonitor.next(after: .init(), reading: reading(150_000), at: start, repeatWarning: hour)
        #expect(apart.skewed)
        guard case .apart(let warning)? = told else {
            Issue.record("no warning: \(String(describing: told))")
            return
        }
        #expect(warning.hasPrefix("this machine's clock is 150 ms ahead of PostgreSQL's"))
        #expect(ClockSkewMonitor.next(after: apart, reading: reading(160_000), at: start + .seconds(60), repeatWarning: hour) == (apart, nil))
        #expect(ClockSkewMonitor.next(after: apart, reading: reading(160_000), at: start + .seconds(3600), repeatWarning: hour).1 != nil)
        // Still apart as far as can be told: a slow reading, or one between half the limit and it.
        #expect(ClockSkewMonitor.next(after: apart, reading: reading(20_000, 90_000), at: start, repeatWarning: hour) == (apart, nil))
        #expect(ClockSkewMonitor.next(after: apart, reading: reading(-80_000), at: start, repeatWarning: hour) == (apart, nil))
        #expect(ClockSkewMonitor.next(after: apart, reading: reading(49_000, 2_000), at: start, repeatWarning: hour) == (apart, nil))
        // Surely within half the limit: back in step.
        #expect(ClockSkewMonitor.next(after: apart, reading: reading(-40_000, 5_000), at: start, repeatWarning: hour) == (.init(), .backInStep))
    }

    /// SQLite has no other clock: the monitor ends at once, with nothing said and no gauge.
    @Test(.timeLimit(.minutes(1)))
    func onSQLiteTheMonitorEndsAtOnce() async throws {
        try await withFreshStore(.sqlite) { (fixture: StoreFixture) async throws in
            let log = CapturedLog()
            let registry = PrometheusCollectorRegistry()
            try await ClockSkewMonitor(store: fixture.store, registry: registry, logger: log.logger).run()
            #expect(log.lines.isEmpty, "\(log.lines)")
            #expect(Self.gauge(registry) == nil)
        }
    }

    /// The warnings and notices logged (a failed reading logs at debug).
    private static func told(_ log: CapturedLog) -> [String] {
        log.lines.filter { $0.hasPrefix("warning ") || $0.hasPrefix("notice ") }
    }

    /// The gauge's value in the registry's text format, nil before its first reading.
    private static func gauge(_ registry: PrometheusCollectorRegistry) -> Double? {
        var buffer: [UInt8] = []
        registry.emit(into: &buffer)
        let line = String(decoding: buffer, as: UTF8.self).split(separator: "\n")
            .first { $0.hasPrefix("subledger_clock_ahead_of_database_seconds ") }
        return line.flatMap { Double($0.split(separator: " ").last ?? "") }
    }

    /// Polls `condition` every 10 ms for up to 10 s.
    private static func eventually(_ condition: () -> Bool) async -> Bool {
        let deadline = ContinuousClock.now + .seconds(10)
        while ContinuousClock.now < deadline {
            if condition() { return true }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return condition()
    }
}
