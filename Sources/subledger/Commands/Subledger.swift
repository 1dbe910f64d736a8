import ArgumentParser

/// The `subledger` command: an event-sourced ledger for App Store subscriptions.
@main
struct Subledger: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "subledger",
        abstract: "A self-hosted, event-sourced ledger for App Store subscriptions.",
        version: SubledgerVersion.current,
        subcommands: [ServeCommand.self, MigrateCommand.self, ReplayCommand.self, AuditCommand.self, VerifyCommand.self, KeysCommand.self],
        defaultSubcommand: nil
    )
}
