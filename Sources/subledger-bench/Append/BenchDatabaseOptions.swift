import ArgumentParser

/// `--database-url`, shared by the benchmarks that need a database.
struct BenchDatabaseOptions: ParsableArguments {
    @Option(name: .customLong("database-url"), help: "Database URL (default: $SUBLEDGER_TEST_POSTGRES_URL, which scripts/bench sets). PostgreSQL runs get a fresh schema.")
    var url: String?
}
