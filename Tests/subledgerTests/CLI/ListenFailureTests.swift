import Foundation
import NIOCore
import Testing

@testable import subledger

/// A failed bind names the address and the setting to change: a busy port is the machine's state
/// (exit 1), an address the machine does not have, or a port it may not open, the configuration's
/// (a `ConfigurationError`, exit 64). The busy port is also run as a real process in
/// `ServeProcessTests`; the others depend on the host's network settings, so they are checked here.
struct ListenFailureTests {
    @Test func bindErrorsNameTheAddressAndTheSettingToChange() throws {
        let busy = try #require(ListenFailure.explain(IOError(errnoCode: EADDRINUSE, reason: "bind"), host: "127.0.0.1", port: 8080))
        #expect(busy is ListenFailure.Busy)
        #expect("\(busy)".hasPrefix("cannot listen on 127.0.0.1:8080: the address is already in use"))

        let missing = try #require(ListenFailure.explain(IOError(errnoCode: EADDRNOTAVAIL, reason: "bind"), host: "192.0.2.1", port: 8080) as? ConfigurationError)
        #expect(missing.key == "http.host")
        #expect(missing.message.hasPrefix("cannot listen on 192.0.2.1:8080: no network interface of this machine has that address"))

        let privileged = try #require(ListenFailure.explain(IOError(errnoCode: EACCES, reason: "bind"), host: "0.0.0.0", port: 80) as? ConfigurationError)
        #expect(privileged.key == "http.port")

        // Anything else is reported as it is.
        #expect(ListenFailure.explain(IOError(errnoCode: EIO, reason: "bind"), host: "127.0.0.1", port: 8080) == nil)
        #expect(ListenFailure.explain(CancellationError(), host: "127.0.0.1", port: 8080) == nil)
    }
}
