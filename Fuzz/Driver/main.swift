import CFuzzerDriver
import Foundation

// SwiftPM links an executable's `main` to this file's entry point, so libFuzzer's own `main` is not
// used: this one hands the command line to libFuzzer's driver, which calls back once per input.
var argc = CommandLine.argc
var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
exit(LLVMFuzzerRunDriver(&argc, &argv) { data, size in fuzzTestOneInput(data, size) })
