import Foundation
import NIOCore

/// Why `serve` could not listen on its address, in the operator's terms: NIO reports a failed bind
/// as the system call's error (`bind(descriptor:ptr:bytes:): Address already in use (errno: 98)`),
/// which names neither the address nor the setting to change.
enum ListenFailure {
    /// The error to report instead of `error`, or nil when `error` is not a failure to listen on
    /// `host:port`. A busy port is the machine's state, not the configuration's (exit 1); an address
    /// the machine does not have or cannot resolve is the configuration's (exit 64, naming the key).
    static func explain(_ error: any Error, host: String, port: Int) -> (any Error)? {
        let address = "\(host):\(port)"
        if let error = error as? IOError {
            switch error.errnoCode {
            case EADDRINUSE:
                return Busy(address: address)
            case EADDRNOTAVAIL:
                return ConfigurationError(key: "http.host", message: "cannot listen on \(address): no network interface of this machine has that address (SUBLEDGER_HTTP_HOST)")
            case EACCES:
                return ConfigurationError(key: "http.port", message: "cannot listen on \(address): permission denied (ports below 1024 need privileges; SUBLEDGER_HTTP_PORT)")
            default:
                return nil
            }
        }
        if error is SocketAddressError || error is SocketAddressError.UnknownHost {
            return ConfigurationError(key: "http.host", message: "cannot listen on \(address): \(host) is not an address of this machine or a name that resolves to one (SUBLEDGER_HTTP_HOST)")
        }
        return nil
    }

    /// Another process listens on the address.
    struct Busy: Error, CustomStringConvertible {
        var address: String
        var description: String {
            "cannot listen on \(address): the address is already in use (another process listens there); stop it, or choose another http.port (SUBLEDGER_HTTP_PORT)"
        }
    }
}
