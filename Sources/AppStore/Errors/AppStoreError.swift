/// An error raised while decoding, verifying or fetching App Store data.
///
/// Callers branch on ``code`` (stable, machine readable, maps 1:1 to a problem+json `code`);
/// ``message`` is for humans and may change. Modelled on swift-certificates' `CertificateError`:
/// new codes can be added without breaking anyone's `switch`.
public struct AppStoreError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What went wrong, as a stable code.
    public var code: Code
    /// A human readable explanation with the offending detail (a field, a status, a date).
    public var message: String
    /// The source file that raised the error, for diagnostics.
    public var file: String
    /// The source line that raised the error, for diagnostics.
    public var line: UInt

    /// Creates an error with a code and a message, capturing where it was raised.
    /// - Why: every throw site in this library goes through here so the context is never lost.
    public init(_ code: Code, _ message: String, file: String = #fileID, line: UInt = #line) {
        self.code = code
        self.message = message
        self.file = file
        self.line = line
    }

    /// `code: message`, the form printed by the CLI and logged by the service.
    public var description: String {
        "\(code.rawValue): \(message)"
    }

    /// Errors compare by code and message only, so tests can match them without the source location.
    public static func == (lhs: AppStoreError, rhs: AppStoreError) -> Bool {
        lhs.code == rhs.code && lhs.message == rhs.message
    }

    /// Hashes the same fields that ``==`` compares.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(code)
        hasher.combine(message)
    }
}
