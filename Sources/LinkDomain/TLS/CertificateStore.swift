import Foundation
import LinkDomainCore
import LinkDomainStorage
import Logging
import NIOCore
import NIOSSL
import Synchronization

/// The server's certificate and key: read from PEM files at start and again on SIGHUP, or
/// installed by ACME ordering (a self-signed stand-in until the first is issued).
///
/// Each new connection takes the context made for the current certificate (made once per
/// install, not per handshake), so a renewed certificate applies to new connections at once, and
/// open connections carry on with the one they started with.
public final class CertificateStore: Sendable {
    /// Mozilla's "intermediate" profile for TLS 1.2: ECDHE key exchange and AEAD ciphers only (TLS
    /// 1.3's suites are all AEAD and not configurable). No CBC, so nothing LUCKY13 could reach.
    static let intermediateCipherSuites = [
        "ECDHE-ECDSA-AES128-GCM-SHA256", "ECDHE-RSA-AES128-GCM-SHA256", "ECDHE-ECDSA-AES256-GCM-SHA384",
        "ECDHE-RSA-AES256-GCM-SHA384", "ECDHE-ECDSA-CHACHA20-POLY1305", "ECDHE-RSA-CHACHA20-POLY1305",
    ].joined(separator: ":")

    /// A certificate chain and the private key that goes with it, as handshakes use them.
    struct Material: Sendable {
        let context: NIOSSLContext
        /// The leaf's names and validity (nil for the stand-in).
        let leaf: CertificateLeaf?

        init(chain: [NIOSSLCertificate], key: NIOSSLPrivateKey, leaf: CertificateLeaf?) throws(TLSFilesProblem) {
            if chain.isEmpty { throw .certificate("holds no certificate") }
            var configuration = TLSConfiguration.makeServerConfiguration(certificateChain: chain.map { .certificate($0) }, privateKey: .privateKey(key))
            Self.applyProfile(&configuration)
            // BoringSSL refuses a key that does not belong to the certificate when it builds a context.
            do {
                context = try NIOSSLContext(configuration: configuration)
            } catch {
                throw .privateKey("does not match the certificate in server.tls.certificatePath")
            }
            self.leaf = leaf
        }

        init(standIn configuration: TLSConfiguration) throws {
            var configuration = configuration
            Self.applyProfile(&configuration)
            context = try NIOSSLContext(configuration: configuration)
            leaf = nil
        }

        /// TLS 1.2 and later with the intermediate suites; HTTP/2 and HTTP/1.1 offered by ALPN.
        static func applyProfile(_ configuration: inout TLSConfiguration) {
            configuration.minimumTLSVersion = .tlsv12
            configuration.cipherSuites = CertificateStore.intermediateCipherSuites
            configuration.applicationProtocols = ["h2", "http/1.1"]
        }

        init(files: TLSFiles) throws(TLSFilesProblem) {
            let certificates: [NIOSSLCertificate]
            do {
                certificates = try NIOSSLCertificate.fromPEMFile(files.certificatePath)
            } catch {
                throw .certificate("could not be read as PEM certificates (\(error))")
            }
            let key: NIOSSLPrivateKey
            do {
                key = try NIOSSLPrivateKey(file: files.privateKeyPath, format: .pem)
            } catch {
                throw .privateKey("could not be read as a PEM private key (\(error))")
            }
            let leaf = (try? String(contentsOfFile: files.certificatePath, encoding: .utf8)).flatMap { try? CertificateLeaf.read(chain: $0) }
            try self.init(chain: certificates, key: key, leaf: leaf)
        }

        init(issued: IssuedCertificate) throws {
            let chain = try NIOSSLCertificate.fromPEMBytes(Array(issued.chainPEM.utf8))
            let key = try NIOSSLPrivateKey(bytes: Array(issued.keyPEM.utf8), format: .pem)
            try self.init(chain: chain, key: key, leaf: try CertificateLeaf.read(chain: issued.chainPEM))
        }
    }

    /// Reads the files as a start or a reload does, for the configuration reader.
    public static let check: TLSFilesCheck = { files throws(TLSFilesProblem) in _ = try Material(files: files) }

    /// The files read at start and on SIGHUP; nil when ACME orders the certificate.
    let files: TLSFiles?
    private let current: Mutex<Material>

    public init(files: TLSFiles) throws {
        self.files = files
        current = Mutex(try Material(files: files))
    }

    /// Serves a self-signed certificate for `names` until ``install(_:)`` brings an issued one.
    init(standInFor names: [String]) throws {
        files = nil
        current = Mutex(try Material(standIn: CertificateFactory.standIn(names: names)))
    }

    /// Reads the files again. On any problem the current certificate stays and the error is thrown.
    public func reload() throws {
        guard let files else { return }
        let material = try Material(files: files)
        current.withLock { $0 = material }
    }

    /// Serves `issued` to every new handshake. On any problem the current certificate stays.
    func install(_ issued: IssuedCertificate) throws {
        let material = try Material(issued: issued)
        current.withLock { $0 = material }
    }

    /// The context new connections use.
    var context: NIOSSLContext { current.withLock { $0.context } }

    /// What is served: the leaf's names and validity (nil while the stand-in is).
    var served: CertificateLeaf? { current.withLock { $0.leaf } }
}
