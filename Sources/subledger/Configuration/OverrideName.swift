/// Which environment variables are configuration overrides: every `SUBLEDGER_*` name but those the
/// project's own tooling sets (`SUBLEDGER_TEST_*` for the tests, `SUBLEDGER_FUZZ` and
/// `SUBLEDGER_FUZZ_*` for `scripts/fuzz`), which every command ignores, so one left exported in a
/// shell does not stop `serve` as an unknown override.
enum OverrideName {
    /// Whether `name` is read as a configuration override.
    static func isOverride(_ name: String) -> Bool {
        name.hasPrefix("SUBLEDGER_")
            && !name.hasPrefix("SUBLEDGER_TEST_")
            && name != "SUBLEDGER_FUZZ"
            && !name.hasPrefix("SUBLEDGER_FUZZ_")
    }
}
