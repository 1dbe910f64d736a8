import LedgerHTTP
import Logging

/// Makes the process's loggers at the configured level, writing lines with `LineLogHandler`.
enum ProcessLogger {
    static func make(level: Logger.Level, label: String = "subledger") -> Logger {
        var logger = Logger(label: label, factory: { LineLogHandler(label: $0) })
        logger.logLevel = level
        return logger
    }
}
