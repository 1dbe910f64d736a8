import NIOSSL
import PostgresNIO

extension PostgresSettings {
    /// The TLS set-up of every connection (the pool's, the change relay's and a diagnosis' direct
    /// one): the server's certificate and host name are verified, against `sslrootcert`'s roots
    /// when given, else the system's.
    var tlsConfiguration: TLSConfiguration {
        var configuration = TLSConfiguration.makeClientConfiguration()
        if let path = tlsRootCertificates {
            configuration.trustRoots = .file(path)
        }
        return configuration
    }

    /// The pool's TLS (postgres-nio's client takes the configuration, a connection a context).
    var poolTLS: PostgresClient.Configuration.TLS {
        switch tls {
        case .disable: .disable
        case .prefer: .prefer(tlsConfiguration)
        case .require: .require(tlsConfiguration)
        }
    }

    /// Refuses an `sslrootcert` that holds no PEM certificate, when the URL is read, so a wrong path
    /// is a configuration error naming it instead of every connection's failed handshake.
    static func checkRootCertificates(at path: String) throws(EventStoreError) {
        let certificates: [NIOSSLCertificate]
        do {
            certificates = try NIOSSLCertificate.fromPEMFile(path)
        } catch {
            throw EventStoreError(.invalidDatabaseURL, "sslrootcert \(path) cannot be read as PEM certificates: \(error)")
        }
        guard !certificates.isEmpty else {
            throw EventStoreError(.invalidDatabaseURL, "sslrootcert \(path) holds no PEM certificate")
        }
    }

    /// A connection of its own outside the pool (the change relay's LISTEN, a diagnosis' attempt),
    /// set up as the pool's are: the same server, credentials, TLS and start-up parameters.
    func directConnectionConfiguration() throws -> PostgresConnection.Configuration {
        let tls: PostgresConnection.Configuration.TLS
        switch self.tls {
        case .disable: tls = .disable
        case .prefer: tls = .prefer(try NIOSSLContext(configuration: tlsConfiguration))
        case .require: tls = .require(try NIOSSLContext(configuration: tlsConfiguration))
        }
        var configuration = PostgresConnection.Configuration(
            host: host, port: port, username: username, password: password, database: database, tls: tls
        )
        configuration.options.additionalStartupParameters = PostgresEventStore.startupParameters(self)
        return configuration
    }
}
