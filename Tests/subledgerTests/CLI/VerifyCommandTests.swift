import AppStore
import AppStoreTesting
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
            // A --root that cannot be used is the operator's option at fault: a usage error naming it.
            let root = try await SubledgerProcess.run(["verify", "--root", "missing.pem", "token.jws"], in: directory)
            #expect(root.status == 64)
            #expect(root.stderr.contains("--root missing.pem: cannot read trust anchor file missing.pem: it does not exist or is not readable"))
            #expect(!root.stderr.contains("NSCocoaErrorDomain"))
            try "garbage".write(to: directory.appendingPathComponent("garbage.pem"), atomically: true, encoding: .utf8)
            let garbage = try await SubledgerProcess.run(["verify", "--root", "garbage.pem", "token.jws"], in: directory)
            #expect(garbage.status == 64)
            #expect(garbage.stderr.contains("--root garbage.pem: not a DER or PEM certificate: ASN1Error"), "\(garbage.stderr)")
            #expect(!garbage.stderr.hasSuffix(": \n"), "\(garbage.stderr)")

            let environment = try await SubledgerProcess.run(["verify", "--environment", "Bogus", "token.jws"], in: directory)
            #expect(environment.status == 64)
            #expect(environment.stderr.contains("--environment must be one of Production, Sandbox, Xcode, LocalTesting (got Bogus)"))

            // A directory and an empty input are named as what they are, not as a malformed JWS.
            let folder = try await SubledgerProcess.run(["verify", "."], in: directory)
            #expect(folder.status == 1)
            #expect(folder.stderr.contains("cannot read .: it is a directory"), "\(folder.stderr)")
            try "".write(to: directory.appendingPathComponent("empty.jws"), atomically: true, encoding: .utf8)
            let empty = try await SubledgerProcess.run(["verify", "empty.jws"], in: directory)
            #expect(empty.status == 1)
            #expect(empty.stderr.contains("empty.jws is empty: give a compact JWS or a notification body"), "\(empty.stderr)")
            let emptyInput = try await SubledgerProcess.run(["verify", "-"], in: directory, input: "\n")
            #expect(emptyInput.stderr.contains("standard input is empty"), "\(emptyInput.stderr)")
        }
    }

    /// When the data is fine but an option does not fit it, the answer says which option.
    @Test func anOptionThatDoesNotFitThePayloadIsNamed() async throws {
        try await withTemporaryDirectory { directory in
            let pki = try TestPKI()
            try pki.rootPEM.write(to: directory.appendingPathComponent("test-root.pem"), atomically: true, encoding: .utf8)
            let now = AppStoreDate(millisecondsSince1970: Int64(Date().timeIntervalSince1970 * 1000))
            try pki.signTransaction(.testSubscription(transactionId: "1000", purchaseDate: now))
                .write(to: directory.appendingPathComponent("sandbox.jws"), atomically: true, encoding: .utf8)
            let verified = try await SubledgerProcess.run(["verify", "--root", "test-root.pem", "sandbox.jws"], in: directory)
            #expect(verified.status == 0, "\(verified.stderr)")
            #expect(verified.stdout.contains(#""transactionId" : "1000""#), "\(verified.stdout)")

            let otherApp = try await SubledgerProcess.run(["verify", "--root", "test-root.pem", "--bundle-id", "com.other.app", "sandbox.jws"], in: directory)
            #expect(otherApp.status == 1)
            #expect(otherApp.stderr.contains("--bundle-id com.other.app is not the app this payload names"), "\(otherApp.stderr)")

            try pki.signTransaction(.testSubscription(transactionId: "1001", purchaseDate: now, environment: .xcode))
                .write(to: directory.appendingPathComponent("xcode.jws"), atomically: true, encoding: .utf8)
            let local = try await SubledgerProcess.run(["verify", "--root", "test-root.pem", "xcode.jws"], in: directory)
            #expect(local.status == 1)
            #expect(local.stderr.hasPrefix("environment_not_accepted"), "\(local.stderr)")
            #expect(local.stderr.contains("unless --environment names another"), "\(local.stderr)")
            let accepted = try await SubledgerProcess.run(["verify", "--root", "test-root.pem", "--environment", "Xcode", "xcode.jws"], in: directory)
            #expect(accepted.status == 0, "\(accepted.stderr)")
            // A named environment that the payload's is not: the option is named too, with what
            // it takes (the two unsigned local environments go together).
            for (option, accepted) in [("Xcode", "Xcode and LocalTesting"), ("Production", "Production")] {
                let named = try await SubledgerProcess.run(["verify", "--root", "test-root.pem", "--environment", option, "sandbox.jws"], in: directory)
                #expect(named.status == 1)
                #expect(named.stderr.hasPrefix("environment_not_accepted"), "\(named.stderr)")
                #expect(named.stderr.hasSuffix("; --environment \(option) accepts \(accepted) only\n"), "\(named.stderr)")
            }
            // A payload that states no environment: no option makes it valid, so none is named.
            var unstated = JWSTransactionDecodedPayload.testSubscription(transactionId: "1002", purchaseDate: now)
            unstated.environment = nil
            try pki.signTransaction(unstated).write(to: directory.appendingPathComponent("unstated.jws"), atomically: true, encoding: .utf8)
            for options in [[], ["--environment", "Production"]] {
                let refused = try await SubledgerProcess.run(["verify", "--root", "test-root.pem"] + options + ["unstated.jws"], in: directory)
                #expect(refused.status == 1)
                #expect(refused.stderr == "environment_not_accepted: transaction states no environment\n", "\(options)")
            }
        }
    }

    /// An apple.transaction event's data.raw keeps the transaction and its renewal info on two
    /// lines: verify takes that text as it is stored, checks both, and says which one failed.
    @Test func aStoredSubmissionsTransactionAndRenewalInfoAreBothVerified() async throws {
        try await withTemporaryDirectory { directory in
            let pki = try TestPKI()
            try pki.rootPEM.write(to: directory.appendingPathComponent("test-root.pem"), atomically: true, encoding: .utf8)
            let now = AppStoreDate(millisecondsSince1970: Int64(Date().timeIntervalSince1970 * 1000))
            let transaction = try pki.signTransaction(.testSubscription(transactionId: "1000", originalTransactionId: "900", purchaseDate: now))
            let renewal = try pki.signRenewalInfo(.testRenewal(originalTransactionId: "900", autoRenewProductId: "com.example.pro.yearly"))
            let both = try await SubledgerProcess.run(["verify", "--root", "test-root.pem", "-"], in: directory, input: transaction + "\n" + renewal + "\n")
            #expect(both.status == 0, "\(both.stderr)")
            #expect(both.stdout.contains(#""transactionId" : "1000""#), "\(both.stdout)")
            #expect(both.stdout.contains(#""autoRenewProductId" : "com.example.pro.yearly""#), "\(both.stdout)")
            #expect(both.stderr.components(separatedBy: "verified: leaf SHA-256").count == 3, "\(both.stderr)")

            // As JSON shows data.raw (quoted, the line break escaped), and after a byte order mark.
            let escaped = try await SubledgerProcess.run(["verify", "--root", "test-root.pem", "-"], in: directory, input: "\u{FEFF}\"" + transaction + "\\n" + renewal + "\"\n")
            #expect(escaped.status == 0, "\(escaped.stderr)")
            #expect(escaped.stdout.contains(#""autoRenewProductId" : "com.example.pro.yearly""#), "\(escaped.stdout)")

            // The second is broken: the answer names it, after the first was printed.
            let broken = try await SubledgerProcess.run(["verify", "--root", "test-root.pem", "-"], in: directory, input: transaction + "\n" + renewal.dropLast(10) + "AAAAAAAAAA\n")
            #expect(broken.status == 1)
            #expect(broken.stderr.contains("\nJWS 2 of 2: invalid_signature: "), "\(broken.stderr)")
            #expect(broken.stdout.contains(#""transactionId" : "1000""#), "\(broken.stdout)")
        }
    }
}
