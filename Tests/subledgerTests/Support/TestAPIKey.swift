/// The API key the `serve` tests configure: its secret, and its SHA-256 hex as `auth.keys` takes it
/// (what `subledger keys hash` prints for the secret, which `KeysCommandTests` checks on its own).
enum TestAPIKey {
    static let secret = "secret"
    static let sha256 = "2bb80d537b1da3e38bd30361aa855686bde0eacd7162fef6a25fe97bf527a25b"
}
