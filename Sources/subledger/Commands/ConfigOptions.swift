import ArgumentParser

/// The `--config` option every command that touches the database shares.
struct ConfigOptions: ParsableArguments {
    @Option(name: .long, help: "YAML configuration file (default: subledger.yaml if present). SUBLEDGER_* environment variables override it.")
    var config: String?

    /// The configuration from the file and the environment.
    func load() throws -> SubledgerConfiguration {
        do {
            return try ConfigurationLoader().load(path: config)
        } catch let error as ConfigurationError {
            throw ValidationError(error.description)
        }
    }
}
