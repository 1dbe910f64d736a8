import EventStore
import Foundation
import Logging

/// The service's settings: defaults, then the YAML file, then `SUBLEDGER_*` environment overrides.
struct SubledgerConfiguration: Sendable, Equatable {
    var httpHost = "127.0.0.1"
    var httpPort = 8080
    var database = DatabaseURL.default
    var migrateOnStart = true
    var logLevel = Logger.Level.info

    /// Reads settings from already-parsed scalar values keyed by dotted path.
    init(values: [String: String]) throws {
        if let host = values["http.host"] { httpHost = host }
        if let port = values["http.port"] { httpPort = Int(port) ?? httpPort }
        if let url = values["database.url"] {
            do {
                database = try DatabaseURL(url)
            } catch {
                throw ConfigurationError(key: "database.url", message: error.message)
            }
        }
        if let migrate = values["database.migrate_on_start"] { migrateOnStart = migrate == "true" }
        if let level = values["log.level"] { logLevel = Logger.Level(rawValue: level) ?? logLevel }
    }

    /// The defaults, with no file and no environment.
    init() {}
}
