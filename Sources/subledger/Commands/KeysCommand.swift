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
        static let configuration = CommandConfiguration(abstract: "Read a secret on standard input and print its SHA-256 hex for auth.keys[].sha256.")

        func run() async throws {
            let input = String(decoding: FileHandle.standardInput.readDataToEndOfFile(), as: UTF8.self)
            let secret = input.trimmingCharacters(in: .newlines)
            guard !secret.isEmpty else { throw ValidationError("no secret on standard input") }
            print(APIKey.hash(secret: secret))
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
