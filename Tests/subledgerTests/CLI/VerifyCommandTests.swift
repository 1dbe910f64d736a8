import Foundation
import Testing

/// `subledger verify`'s answers to an operator's mistakes: each says what is wrong in plain words.
@Suite("subledger verify as a real process")
struct VerifyCommandTests {
    @Test func aMissingInputFileAMissingRootAndAnUnknownEnvironmentAreNamedPlainly() async throws {
        try await withTemporaryDirectory { directory in
            let missing = try await SubledgerProcess.run(["verify", "nothing.jws"], in: directory)
            #expect(missing.status == 1)
            #expect(missing.stderr.contains("cannot read nothing.jws: it does not exist or is not readable"))
            #expect(!missing.stderr.contains("invalid_format"))

            try "x.y.z".write(to: directory.appendingPathComponent("token.jws"), atomically: true, encoding: .utf8)
            let root = try await SubledgerProcess.run(["verify", "--root", "missing.pem", "token.jws"], in: directory)
            #expect(root.status == 1)
            #expect(root.stderr.contains("cannot read trust anchor file missing.pem: it does not exist or is not readable"))
            #expect(!root.stderr.contains("NSCocoaErrorDomain"))

            let environment = try await SubledgerProcess.run(["verify", "--environment", "Bogus", "token.jws"], in: directory)
            #expect(environment.status == 64)
            #expect(environment.stderr.contains("--environment must be one of Production, Sandbox, Xcode, LocalTesting (got Bogus)"))
        }
    }
}
