/// One scalar setting: its dotted YAML key, its environment override, and how to read its text.
struct ConfigurationKey: Sendable {
    /// What a value must look like.
    enum Kind: Sendable {
        case string
        case integer(ClosedRange<Int>)
        case boolean
        case choice([String])
    }

    /// The dotted path in the YAML file, for example `http.port`.
    var path: String
    var kind: Kind
    /// One line for `docs/operations.md` and error messages.
    var help: String

    /// The environment variable that overrides this key: `http.port` → `SUBLEDGER_HTTP_PORT`.
    var environmentName: String {
        "SUBLEDGER_" + path.uppercased().map { $0 == "." || $0 == "-" ? "_" : $0 }.map(String.init).joined()
    }

    /// Every key subledger reads. Adding a setting starts here.
    static let all: [ConfigurationKey] = [
        ConfigurationKey(path: "http.host", kind: .string, help: "address to listen on"),
        ConfigurationKey(path: "http.port", kind: .integer(0...65535), help: "port to listen on (0 picks a free one)"),
        ConfigurationKey(path: "database.url", kind: .string, help: "sqlite:PATH or postgres://user:password@host:port/db"),
        ConfigurationKey(path: "database.migrate_on_start", kind: .boolean, help: "apply pending migrations when serve starts"),
        ConfigurationKey(path: "log.level", kind: .choice(["trace", "debug", "info", "notice", "warning", "error", "critical"]), help: "least severe log level written"),
    ]
}
