/// The keys of HTTPS by itself: the plain port, and certificates ordered from an ACME CA
/// (docs/design/https-by-itself.md).
extension ConfigurationKeys {
    package static let httpPort = ConfigurationKey(
        "server.httpPort", .integer(1...65535), default: .none, expected: "a TCP port from 1 to 65535, such as 80",
        "A plain HTTP port beside the TLS one (80 in a deployment): it answers ACME's http-01 challenges and redirects everything else to `https://` (308, same path). Needs TLS (`server.tls`)."
    )
    package static let acmeDirectoryURL = ConfigurationKey(
        "server.tls.acme.directoryURL", .url, default: .string(ACMESettings.letsEncryptDirectory),
        expected: "the https:// URL of an ACME directory, such as \"https://acme-v02.api.letsencrypt.org/directory\"",
        validate: ConfigurationValidators.acmeDirectoryURL,
        "The ACME (RFC 8555) CA to order certificates from: Let's Encrypt by default, or ZeroSSL, a company's step-ca, any ACME CA. Setting any `server.tls.acme` key turns ordering on (instead of `server.tls.certificatePath`); the account key and certificates are kept in the storage every replica shares."
    )
    package static let acmeEmail = ConfigurationKey(
        "server.tls.acme.email", .string, default: .none, expected: "an email address such as \"ops@example.com\"",
        validate: ConfigurationValidators.emailAddress,
        "The account's contact address: the CA writes to it about expiring certificates and policy changes.")
    package static let acmeNames = ConfigurationKey(
        "server.tls.acme.names", .stringList, default: .described("the hosts of `publicBaseURL` and `pivotBaseURL`"),
        expected: "DNS host names such as \"links.example.com\" (no IP addresses, no wildcards)",
        validate: ConfigurationValidators.certificateName,
        "The names the certificate covers; each must resolve to this server, since the CA checks it there.")
    package static let acmeTrustedCertificatesPath = ConfigurationKey(
        "server.tls.acme.trustedCertificatesPath", .path, default: .none, expected: "a readable PEM file of CA certificates",
        "CA certificates trusted for the directory's HTTPS besides the system's: a private ACME CA, or Pebble in tests.")
    package static let acmeChallenge = ConfigurationKey(
        "server.tls.acme.challenge", .string, default: .string(ACMEChallengeKind.tlsALPN.rawValue),
        expected: "\"tls-alpn-01\" (on the TLS port) or \"http-01\" (on server.httpPort)",
        validate: { ACMEChallengeKind(rawValue: $0)?.rawValue },
        "How the CA checks this server holds the names: `tls-alpn-01` on the TLS port itself (nothing else to open), or `http-01` on `server.httpPort`.")

    package static let acmeExternalAccountKeyID = ConfigurationKey(
        "server.tls.acme.externalAccountKeyID", .string, default: .none, expected: "the key ID the CA gave for external account binding",
        "For a CA that binds ACME accounts to an account of its own (ZeroSSL, Google Trust Services, many company CAs): the EAB key ID it gave, with `externalAccountMacKey`."
    )
    package static let acmeExternalAccountMACKey = ConfigurationKey(
        "server.tls.acme.externalAccountMacKey", .string, default: .none, secret: true,
        expected: "the EAB HMAC key the CA gave, base64url (at least 16 bytes)", validate: ConfigurationValidators.macKey,
        "That binding's HMAC key, base64url, as the CA shows it. Keep it in the environment, not the file; used once, when the account is made.")

    /// Every key of `server.tls.acme`: any one set turns ordering on.
    package static let acmeKeys = [
        acmeDirectoryURL, acmeEmail, acmeNames, acmeTrustedCertificatesPath, acmeChallenge, acmeExternalAccountKeyID, acmeExternalAccountMACKey,
    ]
}
