import Logging
import Synchronization

/// A logger whose lines a test can read: `level message key=value...`, metadata sorted, so a test can
/// check what a component said and when.
public final class CapturedLog: Sendable {
    private let captured = Mutex<[String]>([])

    /// Creates an empty log.
    public init() {}

    /// Every line logged so far.
    public var lines: [String] { captured.withLock { $0 } }

    /// A logger writing here, at every level.
    public var logger: Logger {
        Logger(label: "test") { _ in Handler(log: self) }
    }

    private struct Handler: LogHandler {
        let log: CapturedLog
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .trace

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        func log(event: LogEvent) {
            let fields = self.metadata.merging(event.metadata ?? [:]) { $1 }
            let text = fields.keys.sorted().map { " \($0)=\(fields[$0].map { "\($0)" } ?? "")" }.joined()
            log.captured.withLock { $0.append("\(event.level) \(event.message)\(text)") }
        }
    }
}
