import Foundation
import Synchronization

/// Prints progress of a long job (done, rate, ETA) on standard error, redrawn in place on a terminal.
///
/// Off a terminal it prints at most one line every 5 seconds, so logs stay readable.
final class ProgressPrinter: Sendable {
    private struct State {
        var throttle: ProgressThrottle
        var printed = false
    }

    private let label: String
    private let start = ContinuousClock.now
    private let state: Mutex<State>
    private let interactive: Bool

    init(label: String) {
        self.label = label
        let interactive = standardErrorIsTerminal
        self.interactive = interactive
        state = Mutex(State(throttle: ProgressThrottle(interval: interactive ? .milliseconds(200) : .seconds(5))))
    }

    /// Reports that `done` of `total` units are finished.
    func update(done: Int, total: Int, unit: String) {
        let now = ContinuousClock.now
        let shouldPrint = state.withLock { state -> Bool in
            guard state.throttle.admits(done: done, total: total, at: now) else { return false }
            state.printed = true
            return true
        }
        guard shouldPrint else { return }
        let line = Self.line(label: label, done: done, total: total, unit: unit, elapsed: now - start)
        if interactive {
            printErrorInPlace(line)
        } else {
            printError(line)
        }
    }

    /// Ends the progress line so later output starts on a fresh line; once, however often called.
    func finish() {
        let printed = state.withLock { state in
            defer { state.printed = false }
            return state.printed
        }
        if printed && interactive { printError("") }
    }

    /// Ends the progress line and says, under the job's label, what the job does next (a step
    /// with no count of its own, such as writing what it folded).
    func finish(saying step: String) {
        finish()
        printError("\(label): \(step)")
    }

    /// `audit: 12000/50000 events (24%), 8123 events/s, ETA 4s`. A total counted when the job started
    /// can be passed while it runs (events appended meanwhile): then the count stands alone.
    static func line(label: String, done: Int, total: Int, unit: String, elapsed: Duration) -> String {
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        let rate = seconds > 0 ? Double(done) / seconds : 0
        var text = "\(label): \(done)"
        if total > 0, done > total {
            text += " \(unit) (\(total) when it started; more came since)"
        } else if total > 0 {
            text += "/\(total) \(unit) (\(Int(Double(done) * 100 / Double(total)))%)"
        } else {
            text += " \(unit)"
        }
        text += ", \(Int(rate)) \(unit)/s"
        if total > done, rate > 0 {
            text += ", ETA \(Int((Double(total - done) / rate).rounded(.up)))s"
        }
        return text
    }

    private func printErrorInPlace(_ line: String) {
        FileHandle.standardError.write(Data("\r\u{1B}[2K\(line)".utf8))
    }
}
