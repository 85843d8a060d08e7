/// How the CA checks that this server holds a name (RFC 8555 §8, RFC 8737).
public enum ACMEChallengeKind: String, Sendable, Equatable, CaseIterable {
    /// A self-signed certificate for the name, shown to a ClientHello offering `acme-tls/1` on the TLS port.
    case tlsALPN = "tls-alpn-01"
    /// The key authorization at `http://NAME/.well-known/acme-challenge/TOKEN`, on the plain port.
    case http = "http-01"
}

/// `server.tls.acme`: certificates ordered from an ACME CA instead of read from files.
public struct ACMESettings: Sendable, Equatable {
    package static let letsEncryptDirectory = "https://acme-v02.api.letsencrypt.org/directory"

    public var directoryURL = Self.letsEncryptDirectory
    public var email: String?
    /// The certificate's names, lower case, in the order configured.
    public var names: [String] = []
    public var trustedCertificatesPath: String?
    public var challenge = ACMEChallengeKind.tlsALPN
    /// External account binding (RFC 8555 §7.3.4): the CA's key ID and HMAC key (base64url).
    public var externalAccount: ExternalAccount?

    public struct ExternalAccount: Sendable, Equatable {
        public var keyID: String
        /// **Secret.**
        public var macKey: String
    }

    public init() {}
}
