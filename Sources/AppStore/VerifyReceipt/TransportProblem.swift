import AsyncHTTPClient
import Foundation
import NIOCore
import NIOPosix

/// What went wrong on the way to verifyReceipt, in words an operator reads at a glance ("connection
/// refused"), rather than NIO's "connection reset (error set): Connection refused (errno: 111)".
enum TransportProblem {
    static func describe(_ error: any Error) -> String {
        switch error {
        case let error as IOError:
            return errnoText(error.errnoCode)
        case let error as NIOConnectionError:
            // A host name (Apple's) is connected to through NIO's happy eyeballs, which gathers the
            // failure of each address it tried.
            if error.dnsAError != nil || error.dnsAAAAError != nil, error.connectionErrors.isEmpty {
                return "the host name \(error.host) did not resolve"
            }
            var said: [String] = []
            for failure in error.connectionErrors {
                let text = describe(failure.error)
                if !said.contains(text) { said.append(text) }
            }
            return said.isEmpty ? "no address of \(error.host) could be tried" : said.joined(separator: "; ")
        case let error as HTTPClientError:
            switch error {
            case .connectTimeout: return "no connection within the connect timeout"
            case .readTimeout, .deadlineExceeded: return "no answer within the request timeout"
            case .remoteConnectionClosed: return "the server closed the connection before answering"
            case .tlsHandshakeTimeout: return "the TLS handshake timed out"
            default: return LibraryErrorText.describe(error)
            }
        default:
            return LibraryErrorText.describe(error)
        }
    }

    /// A socket error's meaning, lowercased as the rest of the message.
    static func errnoText(_ code: CInt) -> String {
        switch code {
        case ECONNREFUSED: "connection refused"
        case ECONNRESET: "connection reset by the server"
        case ETIMEDOUT: "connection timed out"
        case EHOSTUNREACH: "host unreachable"
        case ENETUNREACH: "network unreachable"
        default: String(cString: strerror(code)).lowercased() + " (errno \(code))"
        }
    }
}
