import AppStore
import EventStore
import Foundation
import Hummingbird
import Ledger
import NIOCore
import NIOHTTP1

extension Problem {
    /// The problem to answer for any error a route throws, with a stable code.
    ///
    /// Verification failures are the client's (400), a verifier the server cannot use is its own
    /// (500); a database that cannot be reached is transient (503, so Apple retries); Apple's servers
    /// being unreachable is 502.
    public init(_ error: any Error) {
        switch error {
        case let problem as Problem:
            self = problem
        case let error as AppStoreError:
            switch error.code {
            case .appleUnavailable, .invalidResponse:
                self.init(status: .badGateway, code: "apple_unavailable", title: "Apple unavailable", detail: error.message)
            case .inputTooLarge:
                self.init(status: .contentTooLarge, code: "payload_too_large", title: "Payload too large", detail: error.message)
            case .invalidConfiguration, .invalidTrustAnchor:
                // The server's own verifier setup, not the input: a 500, so a webhook's body is not
                // filed as a rejection and Apple retries once it is mended.
                self.init(status: .internalServerError, code: error.code.rawValue, title: Self.title(error.code.rawValue), detail: error.message)
            default:
                self.init(status: .badRequest, code: error.code.rawValue, title: Self.title(error.code.rawValue), detail: error.message)
            }
        case let error as LedgerError where error.code == .unreadableEvent:
            // Stored data this build cannot read, as for a DecodingError below: the server's fault.
            self.init(status: .internalServerError, code: "internal_error", title: "Internal error", detail: "stored data could not be read")
        case let error as LedgerError:
            let status: HTTPResponse.Status = switch error.code {
            case .linkConflict, .grantEnded: .conflict
            case .unknownGrant: .notFound
            case .receiptValidationUnavailable: .serviceUnavailable
            case .sharedSecretRejected: .internalServerError
            default: .badRequest
            }
            // A body sent to another input's endpoint is told which endpoint takes it.
            let endpoint = error.belongsTo.map { ": post it to \($0.endpoint)" } ?? ""
            self.init(status: status, code: error.code.rawValue, title: Self.title(error.code.rawValue), detail: error.message + endpoint)
        case let error as EventStoreError:
            switch error.code {
            case .storageUnavailable, .writeRace:
                self = .storageUnavailable(error.message)
            case .versionConflict:
                self.init(status: .conflict, code: error.code.rawValue, title: Self.title(error.code.rawValue), detail: error.message)
            case .invalidEvent:
                self.init(status: .badRequest, code: "malformed_body", title: "Malformed body", detail: error.message)
            default:
                self.init(status: .internalServerError, code: "storage_error", title: "Storage error", detail: error.message)
            }
        case is NIOTooManyBytesError:
            self.init(status: .contentTooLarge, code: "payload_too_large", title: "Payload too large",
                      detail: "request bodies are limited to \(LedgerRequestContext.maximumBodySize) bytes")
        case let error as HTTPParserError:
            // The body broke off or its framing was broken (the client closed mid-body, or the request
            // timeout closed it): the client's failure, not the server's, so not a 500 on the dashboards.
            // A head that is not HTTP never reaches a route; the HTTP stack answers it.
            self.init(status: .badRequest, code: "malformed_request", title: "Malformed request",
                      detail: "the request could not be read: \(error.explanation)")
        case is DecodingError:
            // Request bodies are decoded by `LedgerRoutes.decode`, which answers 400 `malformed_body`
            // itself; one that gets here came from stored data this build cannot read (an event or a
            // read model): the server's fault, not the request's.
            self.init(status: .internalServerError, code: "internal_error", title: "Internal error", detail: "stored data could not be read")
        case let error as HTTPError:
            // Titles are sentence case, as every other one here: the router's 404 and a route's
            // (an unknown subscription) must not differ in title ("Not Found", "Not found").
            let phrase = error.status.reasonPhrase
            self.init(status: error.status, code: error.status.code == 404 ? "not_found" : "http_\(error.status.code)",
                      title: phrase.prefix(1).uppercased() + phrase.dropFirst().lowercased(), detail: error.body ?? phrase)
        default:
            self.init(status: .internalServerError, code: "internal_error", title: "Internal error", detail: "the server failed to handle the request")
        }
    }

    /// A code's title in sentence case: `invalid_signature` is "Invalid signature", and the names
    /// in it are written as names (`app_apple_id_mismatch` is "App Apple ID mismatch").
    static func title(_ code: String) -> String {
        code.split(separator: "_").enumerated().map { offset, word in
            switch word {
            case "apple": "Apple"
            case "id": "ID"
            default: offset == 0 ? word.capitalized : String(word)
            }
        }.joined(separator: " ")
    }

    /// The database lacks migrations this build needs (a server started with `--no-migrate` before
    /// the migrate job ran): transient, so 503 and the migrations to run.
    static func schemaBehind(_ pending: [Migration], dialect: StorageDialect) -> Problem {
        .storageUnavailable(
            "the \(dialect.rawValue) database lacks \(pending.count) migration(s) this build needs (\(pending.map(\.name).joined(separator: ", "))); run subledger migrate"
        )
    }

    /// A request body that did not decode: the client's fault, in JSON's words ("user_id must be
    /// a string"), as for Apple's payloads. `body` is what failed to decode, read again only to say
    /// where it stops being JSON.
    static func malformedBody(_ error: DecodingError, body: Data) -> Problem {
        Problem(
            status: .badRequest, code: "malformed_body", title: "Malformed body",
            detail: error.summary(of: body, wrongKind: "the body must be a JSON object")
        )
    }

    /// A request body the decoder read, leniently, that is not JSON to every reader.
    static func notJSON(_ fault: JSONSyntaxFault) -> Problem {
        Problem(status: .badRequest, code: "malformed_body", title: "Malformed body", detail: "not valid JSON: \(fault)")
    }
}
