import Crypto
import Foundation
import LinkDomainCore
import NIOSSL
import SwiftASN1
import X509

/// The certificates and requests ordering makes, with swift-certificates: the CSR sent to the CA,
/// tls-alpn-01's challenge certificate, the stand-in served before the first certificate, and the
/// checks of what the CA sent back.
enum CertificateFactory {
    /// `id-pe-acmeIdentifier` (RFC 8737 §6.1).
    static let acmeIdentifierOID: ASN1ObjectIdentifier = [1, 3, 6, 1, 5, 5, 7, 1, 31]

    /// A CSR for `names` (all in the subject alternative names, the first as the common name), DER.
    static func signingRequest(names: [String], key: P256.Signing.PrivateKey) throws -> [UInt8] {
        let extensions = try Certificate.Extensions { SubjectAlternativeNames(names.map { .dnsName($0) }) }
        let request = try CertificateSigningRequest(
            version: .v1, subject: try DistinguishedName { CommonName(names.first ?? "") },
            privateKey: Certificate.PrivateKey(key),
            attributes: CertificateSigningRequest.Attributes([.init(ExtensionRequest(extensions: extensions))]))
        var serializer = DER.Serializer()
        try serializer.serialize(request)
        return serializer.serializedBytes
    }

    /// tls-alpn-01's certificate for `name`: self-signed, the name alone, and the critical
    /// acmeIdentifier extension holding the SHA-256 of the key authorization (RFC 8737 §3).
    static func challengeContext(name: String, keyAuthorization: String) throws -> NIOSSLContext {
        var digest = DER.Serializer()
        try digest.serialize(ASN1OctetString(contentBytes: ArraySlice(SHA256.hash(data: Data(keyAuthorization.utf8)))))
        let acmeIdentifier = Certificate.Extension(oid: acmeIdentifierOID, critical: true, value: ArraySlice(digest.serializedBytes))
        let extensions = try Certificate.Extensions {
            SubjectAlternativeNames([.dnsName(name)])
            acmeIdentifier
        }
        var configuration = try selfSigned(name: name, extensions: extensions, lifetime: 7 * 86400)
        configuration.applicationProtocols = ["acme-tls/1"]
        return try NIOSSLContext(configuration: configuration)
    }

    /// What handshakes get until a certificate has been issued: self-signed, for the first name.
    static func standIn(names: [String]) throws -> TLSConfiguration {
        let extensions = try Certificate.Extensions { SubjectAlternativeNames(names.map { .dnsName($0) }) }
        return try selfSigned(name: names.first ?? "localhost", extensions: extensions, lifetime: 86400)
    }

    private static func selfSigned(name: String, extensions: Certificate.Extensions, lifetime: TimeInterval) throws -> TLSConfiguration {
        let key = P256.Signing.PrivateKey()
        let subject = try DistinguishedName { CommonName(name) }
        let now = Date()
        let certificate = try Certificate(
            version: .v3, serialNumber: Certificate.SerialNumber(), publicKey: .init(key.publicKey),
            notValidBefore: now.addingTimeInterval(-60), notValidAfter: now.addingTimeInterval(lifetime), issuer: subject, subject: subject,
            signatureAlgorithm: .ecdsaWithSHA256, extensions: extensions, issuerPrivateKey: Certificate.PrivateKey(key))
        var serializer = DER.Serializer()
        try serializer.serialize(certificate)
        let nioCertificate = try NIOSSLCertificate(bytes: serializer.serializedBytes, format: .der)
        let nioKey = try NIOSSLPrivateKey(bytes: Array(key.derRepresentation), format: .der)
        return TLSConfiguration.makeServerConfiguration(certificateChain: [.certificate(nioCertificate)], privateKey: .privateKey(nioKey))
    }
}
