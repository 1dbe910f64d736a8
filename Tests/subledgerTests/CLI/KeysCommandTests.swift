import Foundation
import Testing

/// `subledger keys hash` and `keys generate` as an operator runs them to fill `auth.keys`.
@Suite("subledger keys")
struct KeysCommandTests {
    @Test func hashPrintsTheSHA256HexOfTheSecretOnStandardInput() async throws {
        try await withTemporaryDirectory { directory in
            let hashed = try await SubledgerProcess.run(["keys", "hash"], in: directory, input: "secret\n")
            #expect(hashed.status == 0)
            #expect(hashed.stdout == "2bb80d537b1da3e38bd30361aa855686bde0eacd7162fef6a25fe97bf527a25b\n")
            let empty = try await SubledgerProcess.run(["keys", "hash"], in: directory, input: "")
            #expect(empty.status == 64)
            #expect(empty.stderr.contains("no secret on standard input; pipe it in: printf %s \"$SECRET\" | subledger keys hash"), "\(empty.stderr)")
            // Not the top-level usage line a validation error would print.
            #expect(!empty.stderr.contains("Usage:"), "\(empty.stderr)")
        }
    }

    /// A secret no request could present (two lines, a tab, a space at an end) is refused rather than
    /// hashed into a key that never matches; one trailing newline, as echo adds, is not the secret's.
    @Test(arguments: [
        ("a\nb\n", "line break or another control character"), ("a\tb", "line break or another control character"),
        (" secret", "starts or ends with a space"), ("secret \n", "starts or ends with a space"),
    ])
    func hashRefusesASecretNoRequestCouldPresent(_ input: String, _ said: String) async throws {
        try await withTemporaryDirectory { directory in
            let refused = try await SubledgerProcess.run(["keys", "hash"], in: directory, input: input)
            #expect(refused.status == 64)
            #expect(refused.stdout.isEmpty)
            #expect(refused.stderr.contains(said) && refused.stderr.contains("its hash would never match"), "\(refused.stderr)")
        }
    }

    @Test func generatePrintsANewSecretAndTheHashThatHashGivesForIt() async throws {
        try await withTemporaryDirectory { directory in
            var secrets: Set<String> = []
            for _ in 0..<2 {
                let generated = try await SubledgerProcess.run(["keys", "generate"], in: directory)
                #expect(generated.status == 0)
                let lines = generated.stdout.split(separator: "\n")
                let secret = try #require(lines.first { $0.hasPrefix("secret: sl_") }).dropFirst("secret: ".count)
                let sha256 = try #require(lines.first { $0.hasPrefix("sha256: ") }).dropFirst("sha256: ".count)
                #expect(secret.count >= 40)
                let hashed = try await SubledgerProcess.run(["keys", "hash"], in: directory, input: String(secret) + "\n")
                #expect(hashed.stdout == sha256 + "\n")
                secrets.insert(String(secret))
            }
            #expect(secrets.count == 2)
        }
    }
}
