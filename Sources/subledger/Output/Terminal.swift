import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Writes a line to standard error.
func printError(_ line: String) {
    FileHandle.standardError.write(Data((line + "\n").utf8))
}

/// Whether standard error is a terminal, so progress lines may be redrawn in place.
var standardErrorIsTerminal: Bool { isatty(2) == 1 }

/// Whether standard input is a terminal: a person typing, not a pipe.
var standardInputIsTerminal: Bool { isatty(0) == 1 }
