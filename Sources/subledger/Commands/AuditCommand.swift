import ArgumentParser

/// `subledger audit`: checks on the stored history.
struct AuditCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "audit",
        abstract: "Check the integrity of the stored event history.",
        subcommands: [AuditVerifyCommand.self]
    )
}
