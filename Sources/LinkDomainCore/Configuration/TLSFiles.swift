/// A PEM certificate chain (the server's certificate first) and its private key. The server reads
/// both again on SIGHUP.
public struct TLSFiles: Sendable, Equatable {
    public var certificatePath: String
    public var privateKeyPath: String

    public init(certificatePath: String, privateKeyPath: String) {
        self.certificatePath = certificatePath
        self.privateKeyPath = privateKeyPath
    }
}

/// What is wrong with a pair of TLS files, as the server's certificate loader finds it.
public enum TLSFilesProblem: Error, Sendable, Equatable {
    case certificate(String)
    case privateKey(String)
}

/// Reads a pair of TLS files as the server will. The configuration reader is pure: the server's
/// TLS layer hands it this check (`CertificateStore.check`), so a bad file stops the start, not
/// the first handshake.
public typealias TLSFilesCheck = @Sendable (TLSFiles) throws(TLSFilesProblem) -> Void
