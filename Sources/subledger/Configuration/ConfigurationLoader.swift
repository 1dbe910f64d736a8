import EventStore
import Foundation
import Yams

/// Loads `SubledgerConfiguration` from one YAML file plus `SUBLEDGER_*` environment overrides.
///
/// Unknown keys and bad values fail at start with a message naming the key, so a typo never silently
/// falls back to a default. Secrets are never read from the file (later settings name environment
/// variables instead). swift-configuration reads scalars well but cannot reject unknown keys, so the file
/// is checked against `ConfigurationKey.all` here.
struct ConfigurationLoader {
    /// The file read when `--config` is not given, if it exists.
    static let defaultPath = "subledger.yaml"

    var environment: [String: String]

    /// Whether the secrets the file names by environment variable must be set: true for `serve`;
    /// the commands that only touch the database (migrate, replay, audit) do without them, so an
    /// auditor's job is never given Apple's shared secret.
    var needsSecrets: Bool

    init(environment: [String: String] = ProcessInfo.processInfo.environment, needsSecrets: Bool = true) {
        self.environment = environment
        self.needsSecrets = needsSecrets
    }

    /// Loads from `path` (must exist) or, if nil, from `subledger.yaml` when present.
    func load(path: String?) throws -> SubledgerConfiguration {
        var yaml: String?
        if let path {
            guard FileManager.default.fileExists(atPath: path) else {
                throw ConfigurationError(key: "--config", message: "file \(path) does not exist")
            }
            yaml = try Self.read(path, key: "--config")
        } else if FileManager.default.fileExists(atPath: Self.defaultPath) {
            yaml = try Self.read(Self.defaultPath, key: Self.defaultPath)
        }
        // Run in another directory, a command finds no file and falls back on every default: say so.
        let unread = yaml == nil ? "no configuration file was read (no --config, and no \(Self.defaultPath) in \(FileManager.default.currentDirectoryPath))" : nil
        // Named in full where a path it gave is reported (a relative --config names nothing once
        // the report is read in another directory).
        let located = URL(fileURLWithPath: path ?? Self.defaultPath).resolvingSymlinksInPath().path
        return try load(yaml: yaml ?? "", file: path ?? Self.defaultPath, located: located, unread: unread)
    }

    /// The file's text; a directory, an unreadable file or one that is not UTF-8 is a refused
    /// configuration (exit 64, naming the file), not a failure of the work (exit 1).
    private static func read(_ path: String, key: String) throws -> String {
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue {
            throw ConfigurationError(key: key, message: "\(path) is a directory, not a YAML file")
        }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw ConfigurationError(key: key, message: "cannot read \(path) (check its permissions)")
        }
        guard let text = String(data: data, encoding: .utf8) else {
            throw ConfigurationError(key: key, message: "\(path) is not UTF-8 text")
        }
        return text
    }

    /// Loads from YAML text and the environment; `file` names the text's file in errors about it as
    /// a whole, `located` in full where a value it gave is reported, and `unread` says why there was
    /// no file, if there was none.
    func load(yaml: String, file: String = "(file)", located: String? = nil, unread: String? = nil) throws -> SubledgerConfiguration {
        var (values, sections) = try Self.flatten(yaml: yaml, file: file)
        // Secrets never go in the file, even when the environment overrides its value: the file is
        // shared, copied and committed.
        if let fileURL = values["database.url"], DatabaseURL.carriesPassword(fileURL) {
            throw ConfigurationError(
                key: "database.url",
                message: "carries a password, and secrets never go in the file: set the whole URL in SUBLEDGER_DATABASE_URL instead"
            )
        }
        try SecretVariable.refuseOverrideNames(values: values, sections: sections, environment: environment)
        // Where each value came from, so an error names the environment variable when it is at fault.
        var sources = Dictionary(uniqueKeysWithValues: values.keys.map { ($0, $0) })
        // `flatten` has refused every unknown key.
        let keys = Dictionary(uniqueKeysWithValues: ConfigurationKey.all.map { ($0.path, $0) })
        let byEnvironmentName = Dictionary(uniqueKeysWithValues: ConfigurationKey.all.map { ($0.environmentName, $0) })
        for (name, value) in environment where OverrideName.isOverride(name) {
            guard let key = byEnvironmentName[name] else {
                throw ConfigurationError(
                    key: name,
                    message: "unknown environment override; known: \(byEnvironmentName.keys.sorted().joined(separator: ", "))"
                )
            }
            values[key.path] = value
            sources[key.path] = name
        }
        for (path, value) in values {
            guard let key = keys[path] else { continue }
            values[path] = try Self.validate(value, for: key, source: sources[path] ?? path)
        }
        var configuration = try SubledgerConfiguration(values: values, sources: sources)
        switch sources["database.url"] {
        case nil: configuration.databaseOrigin = "the default, as \(unread ?? "\(located ?? file) sets no database.url")"
        case "database.url": configuration.databaseOrigin = "from database.url in \(located ?? file)"
        case let variable?: configuration.databaseOrigin = "from \(variable)"
        }
        try StructuredSettings.apply(sections, to: &configuration, environment: environment, needsSecrets: needsSecrets)
        if let variable = values["apple.verify_receipt.shared_secret_env"] {
            if let secret = environment[variable], !secret.isEmpty {
                configuration.verifyReceiptSharedSecret = secret
            } else if needsSecrets {
                throw ConfigurationError(key: "apple.verify_receipt.shared_secret_env", message: SecretVariable.missing(variable, in: environment))
            }
        }
        return configuration
    }

    /// A whole number within `range`, or an error naming `key`.
    static func integer(_ value: String, in range: ClosedRange<Int>, key: String) throws -> Int {
        guard let number = Int(value), range.contains(number) else {
            throw ConfigurationError(key: key, message: "must be a whole number from \(range.lowerBound) to \(range.upperBound) (got \(value))")
        }
        return number
    }

    /// Checks a value against its key's kind and returns its normal form.
    static func validate(_ value: String, for key: ConfigurationKey, source: String) throws -> String {
        switch key.kind {
        case .string:
            guard !value.isEmpty else { throw ConfigurationError(key: source, message: "must not be empty") }
            return value
        case .integer(let range):
            return String(try integer(value, in: range, key: source))
        case .boolean:
            guard let flag = BooleanSetting.parse(value) else { throw BooleanSetting.refusal(key: source, got: value) }
            return flag ? "true" : "false"
        case .choice(let choices):
            // In any letter case, as booleans are: `INFO` is as plain as `info`.
            guard let choice = choices.first(where: { $0 == value.lowercased() }) else {
                throw ConfigurationError(key: source, message: "must be one of \(choices.joined(separator: ", ")) (got \(value))")
            }
            return choice
        case .url:
            // Checked here, not after a minute of retries against a URL that names no server.
            guard let url = URLComponents(string: value), ["http", "https"].contains(url.scheme?.lowercased() ?? ""),
                  let host = url.host, !host.isEmpty else {
                throw ConfigurationError(key: source, message: "must be an http or https URL with a host (got \(value))")
            }
            return value
        }
    }

    /// Every key the file may have, single values and structured sections, for "unknown key" errors.
    static let knownKeys = (ConfigurationKey.all.map(\.path) + ConfigurationKey.structured.keys).sorted()

    /// Turns nested YAML mappings into dotted keys with scalar text values, setting aside the
    /// structured sections (lists and maps) for `StructuredSettings`.
    ///
    /// Each key is checked where it stands: one that is neither a setting nor a section holding
    /// settings is unknown whatever its value, so a misspelt section is named as a misspelling rather
    /// than by what its contents are not.
    static func flatten(yaml: String, file: String = "(file)") throws -> ([String: String], [String: Node]) {
        let node: Node?
        do {
            node = try Yams.compose(yaml: yaml)
        } catch {
            throw ConfigurationError(key: file, message: "not valid YAML: \(error)")
        }
        guard let node else { return ([:], [:]) }
        guard case .mapping = node else {
            throw ConfigurationError(key: file, message: "the top level must be a mapping of keys")
        }
        var values: [String: String] = [:]
        var sections: [String: Node] = [:]
        try flatten(node, prefix: "", into: &values, sections: &sections)
        return (values, sections)
    }

    private static func flatten(_ node: Node, prefix: String, into values: inout [String: String], sections: inout [String: Node]) throws {
        if ConfigurationKey.structured[prefix] != nil {
            sections[prefix] = node
            return
        }
        if case .alias = node {
            throw ConfigurationError(key: prefix, message: "YAML aliases are not supported")
        }
        // The root, or a section such as `http` or `apple.verify_receipt`.
        let isSection = prefix.isEmpty || knownKeys.contains { $0.hasPrefix(prefix + ".") }
        let isSetting = ConfigurationKey.all.contains { $0.path == prefix }
        guard isSection || isSetting else {
            throw ConfigurationError(key: prefix, message: "unknown key; known keys: \(knownKeys.joined(separator: ", "))")
        }
        switch node {
        case .mapping(let mapping) where isSection:
            for (keyNode, valueNode) in mapping {
                guard let key = keyNode.string else {
                    throw ConfigurationError(key: prefix.isEmpty ? "(file)" : prefix, message: "keys must be strings")
                }
                try flatten(valueNode, prefix: prefix.isEmpty ? key : "\(prefix).\(key)", into: &values, sections: &sections)
            }
        case .scalar(let scalar) where isSetting:
            values[prefix] = scalar.string
        case .scalar where node.null != nil:
            // A section left empty (`http:` with every key under it commented out) sets nothing.
            break
        case _ where isSection:
            let inside = knownKeys.filter { $0.hasPrefix(prefix + ".") }.joined(separator: ", ")
            throw ConfigurationError(key: prefix, message: "is a section: it takes a mapping of keys (\(inside)), not a single value or a list")
        default:
            throw ConfigurationError(key: prefix, message: "expected a single value, not a list or a mapping")
        }
    }
}
