import Crypto
import Foundation
import NIOCore
import NIOPosix
import NIOSSL
import SwiftASN1
import X509

/// A loopback server that speaks just enough of PostgreSQL's wire protocol to test TLS: it accepts
/// the SSLRequest, completes a TLS handshake with a certificate from its own throwaway CA, and answers
/// the start-up message with an ErrorResponse (3D000). A client that gets that answer has trusted the
/// certificate and verified the host; one that does not trust it fails in the handshake.
final class FakeTLSPostgres: Sendable {
    /// The CA that issued the server's certificate, as PEM, for `sslrootcert`.
    let caPEM: String
    private let channel: any Channel

    /// The loopback port it listens on.
    var port: Int { channel.localAddress?.port ?? 0 }

    /// The message the server answers every start-up with.
    static let answer = #"database "subledger_tls_probe" does not exist"#

    /// Starts a server whose certificate names `address` (an IPv4 address) in its subject alternative
    /// names; one that does not offer TLS answers the SSLRequest with "N", as PostgreSQL with ssl off.
    /// One that `acceptsLogin` lets the client in and then never answers a query, as a pooler waiting
    /// for a server connection does.
    init(certificateFor address: [UInt8] = [127, 0, 0, 1], offersTLS: Bool = true, acceptsLogin: Bool = false) async throws {
        let caKey = P256.Signing.PrivateKey()
        let serverKey = P256.Signing.PrivateKey()
        let caName = try DistinguishedName { CommonName("subledger test PostgreSQL CA") }
        let notBefore = Date(timeIntervalSince1970: 1_577_836_800)
        let notAfter = Date(timeIntervalSince1970: 2_366_841_600)
        let ca = try Certificate(
            version: .v3, serialNumber: Certificate.SerialNumber(), publicKey: .init(caKey.publicKey),
            notValidBefore: notBefore, notValidAfter: notAfter, issuer: caName, subject: caName,
            signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.isCertificateAuthority(maxPathLength: nil))
                Critical(KeyUsage(keyCertSign: true, cRLSign: true))
            },
            issuerPrivateKey: .init(caKey)
        )
        let server = try Certificate(
            version: .v3, serialNumber: Certificate.SerialNumber(), publicKey: .init(serverKey.publicKey),
            notValidBefore: notBefore, notValidAfter: notAfter, issuer: caName,
            subject: try DistinguishedName { CommonName("subledger test PostgreSQL") },
            signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.notCertificateAuthority)
                Critical(KeyUsage(digitalSignature: true))
                try ExtendedKeyUsage([.serverAuth])
                SubjectAlternativeNames([.ipAddress(ASN1OctetString(contentBytes: ArraySlice(address)))])
            },
            issuerPrivateKey: .init(caKey)
        )
        var serializer = DER.Serializer()
        try serializer.serialize(server)
        let configuration = TLSConfiguration.makeServerConfiguration(
            certificateChain: [.certificate(try NIOSSLCertificate(bytes: serializer.serializedBytes, format: .der))],
            privateKey: .privateKey(try NIOSSLPrivateKey(bytes: Array(serverKey.pemRepresentation.utf8), format: .pem))
        )
        let context = try NIOSSLContext(configuration: configuration)
        self.caPEM = try ca.serializeAsPEM().pemString
        self.channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(Conversation(context: context, offersTLS: offersTLS, acceptsLogin: acceptsLogin))
                }
            }
            .bind(host: "127.0.0.1", port: 0).get()
    }

    /// Stops listening.
    func close() async throws {
        try await channel.close()
    }

    /// One client's conversation: the SSLRequest in the clear, then TLS, then the refusal.
    private final class Conversation: ChannelInboundHandler, Sendable {
        typealias InboundIn = ByteBuffer
        typealias OutboundOut = ByteBuffer
        let context: NIOSSLContext
        let offersTLS: Bool
        let acceptsLogin: Bool

        init(context: NIOSSLContext, offersTLS: Bool, acceptsLogin: Bool) {
            self.context = context
            self.offersTLS = offersTLS
            self.acceptsLogin = acceptsLogin
        }

        /// Takes each message as one read: on loopback the client writes the 8-byte SSLRequest and
        /// waits for the answer, and a start-up message cut in two only adds a write to a closing channel.
        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            let bytes = unwrapInboundIn(data)
            // The SSLRequest: length 8, code 80877103. Anything after the handshake is the start-up.
            if bytes.getInteger(at: bytes.readerIndex + 4, as: UInt32.self) == 80_877_103,
               (try? context.pipeline.syncOperations.handler(type: NIOSSLServerHandler.self)) == nil {
                context.writeAndFlush(wrapOutboundOut(ByteBuffer(bytes: [UInt8(ascii: offersTLS ? "S" : "N")])), promise: nil)
                if offersTLS {
                    _ = try? context.pipeline.syncOperations.addHandler(NIOSSLServerHandler(context: self.context), position: .first)
                }
                return
            }
            if acceptsLogin {
                // A start-up message carries protocol 3.0 after its length; anything else is a query,
                // left unanswered.
                guard bytes.getInteger(at: bytes.readerIndex + 4, as: UInt32.self) == 196_608 else { return }
                var login = ByteBuffer()
                login.writeInteger(UInt8(ascii: "R"))
                login.writeInteger(UInt32(8))
                login.writeInteger(UInt32(0))
                login.writeInteger(UInt8(ascii: "K"))
                login.writeInteger(UInt32(12))
                login.writeInteger(UInt32(1))
                login.writeInteger(UInt32(2))
                login.writeInteger(UInt8(ascii: "Z"))
                login.writeInteger(UInt32(5))
                login.writeInteger(UInt8(ascii: "I"))
                context.writeAndFlush(wrapOutboundOut(login), promise: nil)
                return
            }
            var fields = ByteBuffer()
            let error: [(Unicode.Scalar, String)] = [("S", "FATAL"), ("V", "FATAL"), ("C", "3D000"), ("M", FakeTLSPostgres.answer)]
            for (type, value) in error {
                fields.writeInteger(UInt8(ascii: type))
                fields.writeString(value)
                fields.writeInteger(UInt8(0))
            }
            fields.writeInteger(UInt8(0))
            var message = ByteBuffer()
            message.writeInteger(UInt8(ascii: "E"))
            message.writeInteger(UInt32(4 + fields.readableBytes))
            message.writeBuffer(&fields)
            let channel = context.channel
            context.writeAndFlush(wrapOutboundOut(message)).whenComplete { _ in channel.close(promise: nil) }
        }

        func errorCaught(context: ChannelHandlerContext, error: any Error) {
            context.close(promise: nil)
        }
    }
}
