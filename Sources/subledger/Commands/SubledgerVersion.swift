/// This build's version, printed by `subledger --version`, so a report or a bug can say which build
/// it came from. Raise it with each release; the schema has its own numbers (`Migrations/`).
enum SubledgerVersion {
    static let current = "0.2.0"
}
