import ArgumentParser

/// The `--config` option every command that touches the database shares.
struct ConfigOptions: ParsableArguments {
    @Option(name: .long, help: "YAML configuration file (default: subledger.yaml if present). SUBLEDGER_* environment variables override it.")
    var config: String?

    /// The configuration from the file and the environment; with `needsSecrets` false, secrets the
    /// file names by environment variable may be missing (commands that never talk to Apple).
    func load(needsSecrets: Bool = true) throws -> SubledgerConfiguration {
        do {
            return try ConfigurationLoader(needsSecrets: needsSecrets).load(path: config)
        } catch let error as ConfigurationError {
            throw Self.exit(error)
        }
    }

    /// Says what is wrong with the configuration and exits 64, without the command-line usage a
    /// `ValidationError` prints: the command line itself was fine.
    static func exit(_ error: ConfigurationError) -> ExitCode {
        printError("Error: \(error.description)")
        return ExitCode(64)
    }
}
