import Foundation

/// The parsers `scripts/fuzz` can drive, each over bytes an attacker or a damaged row could hand us.
///
/// Chosen by `SUBLEDGER_FUZZ_TARGET`. A target traps (so libFuzzer keeps the input) when the code under
/// it traps, or when a stated invariant breaks: the fast scanners must give `JSONDecoder`'s value
/// whenever they accept, and the V1 password redaction must keep JSON JSON.
enum FuzzTarget: String, CaseIterable, Sendable {
    /// A webhook body `{"signedPayload": ...}`: the plain reader against `JSONDecoder`.
    case notificationBody = "notification-body"
    /// A compact JWS split and its header and segments decoded, as before any signature check.
    case jws
    /// base64 and base64url against Foundation's decoder.
    case base64
    /// JWS payloads (first byte picks notification, transaction or renewal info): the scanner against `JSONDecoder`.
    case payload
    /// A legacy app receipt's DER (PKCS #7 around an ASN.1 set of attributes).
    case receipt
    /// A V1 notification body with its `password` values redacted.
    case redaction
    /// Stored facts and read-model documents (first byte picks the type): the scanner against `JSONDecoder`.
    case stored
    /// Any bytes through the untrusted decode and `JSONSyntaxFault`: no trap, no fault in what
    /// Foundation parses, and a fault's place inside the input.
    case jsonSyntax = "json-syntax"

    /// The target named by `SUBLEDGER_FUZZ_TARGET`; the process stops with the list if it names none.
    static let selected: FuzzTarget = {
        let name = ProcessInfo.processInfo.environment["SUBLEDGER_FUZZ_TARGET"] ?? ""
        guard let target = FuzzTarget(rawValue: name) else {
            let names = FuzzTarget.allCases.map(\.rawValue).joined(separator: ", ")
            FileHandle.standardError.write(Data("set SUBLEDGER_FUZZ_TARGET to one of: \(names)\n".utf8))
            exit(2)
        }
        return target
    }()

    /// Runs the check the input's first byte picks on the rest of the input.
    static func pick(_ bytes: UnsafeRawBufferPointer, _ checks: [(Data) -> Void]) {
        guard let selector = bytes.first else { return }
        checks[Int(selector) % checks.count](Data(bytes.dropFirst()))
    }

    /// Whenever a scanner gives a value for `json`, `JSONDecoder` must give the same one.
    static func agree<Value: Decodable & Equatable>(_ scanned: Value?, _ json: Data) {
        guard let scanned else { return }
        let decoded: Value
        do {
            decoded = try JSONDecoder().decode(Value.self, from: json)
        } catch {
            fatalError("the scanner read a \(Value.self) JSONDecoder refuses: \(error)")
        }
        guard scanned == decoded else {
            fatalError("the scanner and JSONDecoder read different \(Value.self) values:\n\(scanned)\n\(decoded)")
        }
    }

    /// Runs the target on one input.
    func run(_ bytes: UnsafeRawBufferPointer) {
        switch self {
        case .notificationBody: Self.notificationBody(Data(bytes))
        case .jws: Self.jws(bytes)
        case .base64: Self.base64(bytes)
        case .payload: Self.payload(bytes)
        case .receipt: Self.receipt(bytes)
        case .redaction: Self.redaction(bytes)
        case .stored: Self.stored(bytes)
        case .jsonSyntax: Self.jsonSyntax(Data(bytes))
        }
    }
}
