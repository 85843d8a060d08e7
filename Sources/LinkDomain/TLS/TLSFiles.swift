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
