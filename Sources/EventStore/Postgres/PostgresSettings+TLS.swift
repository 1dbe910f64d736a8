import NIOSSL

extension PostgresSettings {
    /// The TLS set-up of every connection (the pool's and a diagnosis' direct one): the server's
    /// certificate and host name are verified, against `sslrootcert`'s roots when given, else the
    /// system's.
    var tlsConfiguration: TLSConfiguration {
        var configuration = TLSConfiguration.makeClientConfiguration()
        if let path = tlsRootCertificates {
            configuration.trustRoots = .file(path)
        }
        return configuration
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
}
