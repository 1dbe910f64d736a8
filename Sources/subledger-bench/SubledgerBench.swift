import ArgumentParser

/// `subledger-bench`: throughput benchmarks that print their figures. Build with `-c release`.
@main
struct SubledgerBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "subledger-bench",
        abstract: "Benchmarks for subledger; run with swift run -c release subledger-bench <name>.",
        subcommands: [AppendBenchmark.self, ReplayBenchmark.self, VerifyBenchmark.self, HTTPBenchmark.self, JSONScanBenchmark.self]
    )
}
