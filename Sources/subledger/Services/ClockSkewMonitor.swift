import EventStore
import Logging
import Prometheus
import ServiceLifecycle

/// Compares this instance's clock with PostgreSQL's at start-up and then every `interval` while
/// `serve` runs, and says when they come apart or back into step.
///
/// A clock that agreed at start-up can drift later (NTP stopped, a virtual machine resumed from a
/// pause), and the events it stamps would then sort out of order for `as_of` against other
/// instances' (see `ClockSkewCheck`). Each reading is also the gauge
/// `subledger_clock_ahead_of_database_seconds`, to alert on. On SQLite there is no other clock, and
/// the monitor ends at once.
struct ClockSkewMonitor: Service {
    /// How often the clocks are compared while `serve` runs.
    static let defaultInterval: Duration = .seconds(60)
    /// How often a difference that lasts is told again in the log.
    static let defaultRepeat: Duration = .seconds(3600)
    /// The gauge each reading sets.
    static let gaugeName = "subledger_clock_ahead_of_database_seconds"

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
        /// Whether it said they differ.
        var skewed = false
        /// When it last said so, on the monitor's clock.
        var warnedAt: ContinuousClock.Instant?
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
            logger.notice("this machine's clock is back within \(ClockSkewCheck.backInStepMicros / 1000) ms of PostgreSQL's", metadata: metadata)
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
        if let warning = ClockSkewCheck.warning(reading) {
            if state.skewed, let warnedAt = state.warnedAt, now - warnedAt < repeatWarning {
                return (state, nil)
            }
            return (State(skewed: true, warnedAt: now), .apart(warning))
        }
        guard state.skewed, reading.agrees(within: ClockSkewCheck.backInStepMicros) else { return (state, nil) }
        return (State(), .backInStep)
    }
}
