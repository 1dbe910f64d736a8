/// Why one direct attempt to connect to PostgreSQL failed, and whether trying again can help.
public struct PostgresConnectionProblem: Sendable, Hashable, CustomStringConvertible {
    /// PostgreSQL's answer with its SQLSTATE, or the network's or TLS's error.
    public var message: String
    /// The server refused the settings themselves (authentication, a database or role that does not
    /// exist, no TLS where it is required, a certificate that does not verify): waiting will not
    /// change the answer. A refused or timed out connection, or a server still starting (57P03),
    /// may be gone a moment later.
    public var isPermanent: Bool

    /// Creates a problem.
    public init(message: String, isPermanent: Bool) {
        self.message = message
        self.isPermanent = isPermanent
    }

    /// The message alone, as a command quotes it.
    public var description: String { message }
}
