import Logging

/// Makes the process's loggers at the configured level.
enum ProcessLogger {
    static func make(level: Logger.Level, label: String = "subledger") -> Logger {
        var logger = Logger(label: label)
        logger.logLevel = level
        return logger
    }
}
