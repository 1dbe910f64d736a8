import ArgumentParser
import Foundation
import LedgerHTTP

/// `subledger keys`: make API keys for `auth.keys`.
struct KeysCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "keys",
        abstract: "Make API keys: the configuration stores only their SHA-256.",
        subcommands: [Hash.self, Generate.self]
    )

    /// `subledger keys hash`: reads a secret on stdin and prints its SHA-256 hex.
    struct Hash: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Read a secret on standard input and print its SHA-256 hex for auth.keys[].sha256.",
            discussion: "Pipe the secret in, so it stays off the screen: printf %s \"$SECRET\" | subledger keys hash"
        )

        func run() async throws {
            if standardInputIsTerminal {
                // At a terminal the command would otherwise look hung; the terminal echoes what is typed.
                printError("type the secret, then Enter and Ctrl-D (it shows as you type; piping it in keeps it off the screen)")
            }
            let input = String(decoding: FileHandle.standardInput.readDataToEndOfFile(), as: UTF8.self)
            let secret = input.trimmingCharacters(in: .newlines)
            guard !secret.isEmpty else {
                printError("Error: no secret on standard input; pipe it in: printf %s \"$SECRET\" | subledger keys hash")
                throw ExitCode(64)
            }
            if let problem = Self.problem(with: secret) {
                printError("Error: \(problem), so no request could present it and its hash would never match; pipe in the one line a client sends: printf %s \"$SECRET\" | subledger keys hash")
                throw ExitCode(64)
            }
            print(APIKey.hash(secret: secret))
        }

        /// Why a request's `Authorization: Bearer` header could never carry `secret`, or nil: a header
        /// holds no line break or other control character, and HTTP drops spaces at a value's ends.
        static func problem(with secret: String) -> String? {
            if secret.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) {
                return "the secret holds a line break or another control character, which an HTTP header cannot carry"
            }
            if secret.first == " " || secret.last == " " {
                return "the secret starts or ends with a space, which HTTP drops from a header"
            }
            return nil
        }
    }

    /// `subledger keys generate`: prints a new random secret and its hash.
    struct Generate: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Print a new random API secret and its SHA-256 hex.")

        func run() async throws {
            var generator = SystemRandomNumberGenerator()
            let bytes = (0..<32).map { _ in UInt8.random(in: 0...255, using: &generator) }
            let secret = "sl_" + Data(bytes).base64EncodedString()
                .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
            print("secret: \(secret)")
            print("sha256: \(APIKey.hash(secret: secret))")
        }
    }
}
