import EventStore
import Logging
import Prometheus
import ServiceLifecycle

/// Compares this instance's clock with PostgreSQL's at start-up and then every `interval` while
/// `serve` runs, and says when they come apart or back into step.
///
/// Each instance stamps `recorded_at` with its own clock. When instances sharing a database are out
/// of step, an event can be stamped before one another instance recorded earlier: a transfer's
/// unlink before the link it undoes, so `as_of` moments between them list the chain under two users
/// (multi-instance walkthrough, with one clock 5 s behind). The database's clock is the one every
/// instance can be compared with; agreeing with it to a tenth of a second keeps any two instances
/// within a fifth. A clock that agreed at start-up can drift later (NTP stopped, a virtual machine
/// resumed from a pause), so the readings go on. Each reading is also the gauge
/// `subledger_clock_ahead_of_database_seconds`, to alert on. On SQLite there is no other clock, and
/// the monitor ends at once.
struct ClockSkewMonitor: Service {
    /// How often the clocks are compared while `serve` runs.
    static let defaultInterval: Duration = .seconds(60)
    /// How often a difference that lasts is told again in the log.
    static let defaultRepeat: Duration = .seconds(3600)
    /// The gauge each reading sets.
    static let gaugeName = "subledger_clock_ahead_of_database_seconds"
    /// The most the clocks may differ by without a warning, in microseconds.
    static let toleranceMicros: Int64 = 100_000
    /// How close they must surely be again, after a warning, to be said back in step: half the
    /// tolerance, so a clock hovering near it is not said apart and back every reading.
    static let backInStepMicros: Int64 = toleranceMicros / 2

    let store: any EventStore
    let registry: PrometheusCollectorRegistry
    let logger: Logger
    let interval: Duration
    let repeatWarning: Duration

    /// Makes the monitor; its gauge goes in `registry` at the first reading (none on SQLite).
    init(
        store: any EventStore, registry: PrometheusCollectorRegistry, logger: Logger,
        interval: Duration = Self.defaultInterval, repeatWarning: Duration = Self.defaultRepeat
    ) {
        self.store = store
        self.registry = registry
        self.logger = logger
        self.interval = interval
        self.repeatWarning = repeatWarning
    }

    /// What the log last said about the clocks.
    struct State: Sendable, Equatable {
        /// When it last said they differ, on the monitor's clock; nil while it says they agree.
        var warnedAt: ContinuousClock.Instant?

        /// Whether the log last said the clocks differ.
        var skewed: Bool { warnedAt != nil }
    }

    /// Reads the clocks now and every `interval` until a graceful stop (or a cancellation); returns
    /// at once when the store has no server clock.
    func run() async throws {
        // A graceful stop cancels the loop, whose wait then throws: the monitor ends quietly.
        try? await cancelWhenGracefulShutdown {
            var state = State()
            while let next = await check(after: state) {
                state = next
                try await Task.sleep(for: interval)
            }
        }
    }

    /// What a reading leads the monitor to log.
    enum Message: Sendable, Equatable {
        /// The clocks are apart: the warning to log.
        case apart(String)
        /// They are back in step after a warning.
        case backInStep
    }

    /// Takes one reading: sets the gauge and logs what `next` says. Nil when the store has no
    /// server clock; the state unchanged when the database could not be read (`/ready` says so; the
    /// gauge keeps its last reading).
    func check(after state: State) async -> State? {
        let reading: ClockReading?
        do {
            reading = try await store.readServerClock()
        } catch {
            logger.debug("could not read PostgreSQL's clock", metadata: ["error": "\(error)"])
            return state
        }
        guard let reading else { return nil }
        // Made here rather than through swift-metrics, so a test can read it from its own registry;
        // the registry hands back the same gauge each time.
        registry.makeGauge(name: Self.gaugeName, help: "This instance's clock minus PostgreSQL's at the last reading, in seconds")
            .set(Double(reading.aheadOfServerMicros) / 1_000_000)
        let (next, message) = Self.next(after: state, reading: reading, at: .now, repeatWarning: repeatWarning)
        let metadata: Logger.Metadata = [
            "clock_ahead_of_server_ms": "\(reading.aheadOfServerMicros / 1000)", "uncertainty_ms": "\(reading.uncertaintyMicros / 1000)",
        ]
        switch message {
        case .apart(let warning)?:
            logger.warning("\(warning)", metadata: metadata)
        case .backInStep?:
            logger.notice("this machine's clock is back within \(Self.backInStepMicros / 1000) ms of PostgreSQL's", metadata: metadata)
        case nil:
            break
        }
        return next
    }

    /// What a reading taken `now` changes. Clocks surely apart by more than the tolerance are told
    /// at once, then again every `repeatWarning`; after that, only clocks surely back within half the
    /// tolerance are said in step. A reading in between, or one whose round trip was too slow to
    /// tell, changes nothing, so a clock near the limit or a slow reading does not make the log
    /// say apart and back again.
    static func next(after state: State, reading: ClockReading, at now: ContinuousClock.Instant, repeatWarning: Duration) -> (State, Message?) {
        if let warning = warning(reading) {
            if let warnedAt = state.warnedAt, now - warnedAt < repeatWarning {
                return (state, nil)
            }
            return (State(warnedAt: now), .apart(warning))
        }
        guard state.skewed, reading.agrees(within: backInStepMicros) else { return (state, nil) }
        return (State(), .backInStep)
    }

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
