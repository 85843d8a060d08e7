import LinkDomainCore
import LinkDomainStorage
import Logging
import NIOCore
import NIOSSL
import Synchronization

/// The server's certificate and key, read from their PEM files at start and again on SIGHUP.
///
/// Each new connection takes the context made for the current certificate (made once per read,
/// not per handshake), so a renewed certificate applies to new connections at once, and open
/// connections carry on with the one they started with.
public final class CertificateStore: Sendable {
    /// A certificate chain and the private key that goes with it.
    struct Material: Sendable {
        /// As TLS configurations take them, made once rather than at every handshake.
        let chain: [NIOSSLCertificateSource]
        let key: NIOSSLPrivateKeySource
        /// What each handshake uses: TLS 1.2 and later, HTTP/2 and HTTP/1.1 offered by ALPN.
        let context: NIOSSLContext

        init(files: TLSFiles) throws(TLSFilesProblem) {
            let certificates: [NIOSSLCertificate]
            do {
                certificates = try NIOSSLCertificate.fromPEMFile(files.certificatePath)
            } catch {
                throw .certificate("could not be read as PEM certificates (\(error))")
            }
            if certificates.isEmpty { throw .certificate("holds no certificate") }
            chain = certificates.map { .certificate($0) }
            do {
                key = .privateKey(try NIOSSLPrivateKey(file: files.privateKeyPath, format: .pem))
            } catch {
                throw .privateKey("could not be read as a PEM private key (\(error))")
            }
            // BoringSSL refuses a key that does not belong to the certificate when it builds a context.
            var configuration = TLSConfiguration.makeServerConfiguration(certificateChain: chain, privateKey: key)
            configuration.minimumTLSVersion = .tlsv12
            configuration.applicationProtocols = ["h2", "http/1.1"]
            do {
                context = try NIOSSLContext(configuration: configuration)
            } catch {
                throw .privateKey("does not match the certificate in server.tls.certificatePath")
            }
        }
    }

    /// Reads the files as a start or a reload does, for the configuration reader.
    public static let check: TLSFilesCheck = { files throws(TLSFilesProblem) in _ = try Material(files: files) }

    let files: TLSFiles
    private let current: Mutex<Material>

    public init(files: TLSFiles) throws {
        self.files = files
        current = Mutex(try Material(files: files))
    }

    /// Reads the files again. On any problem the current certificate stays and the error is thrown.
    public func reload() throws {
        let material = try Material(files: files)
        current.withLock { $0 = material }
    }

    /// The context new connections use.
    var context: NIOSSLContext { current.withLock { $0.context } }
}
