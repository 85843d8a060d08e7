import Foundation

/// Reading `server.tls.acme` (docs/design/https-by-itself.md).
extension ValidatingReader {
    /// `server.tls.acme`: the CA, the names (by default the public hosts), the challenge.
    mutating func readACME(_ configuration: LinkDomainConfiguration, baseDirectory: String?) -> ACMESettings? {
        var acme = ACMESettings()
        acme.directoryURL = validated(ConfigurationKeys.acmeDirectoryURL) ?? acme.directoryURL
        acme.email = validated(ConfigurationKeys.acmeEmail)
        acme.trustedCertificatesPath = path(ConfigurationKeys.acmeTrustedCertificatesPath, baseDirectory: baseDirectory)
        acme.challenge = validated(ConfigurationKeys.acmeChallenge).flatMap(ACMEChallengeKind.init(rawValue:)) ?? acme.challenge
        switch (string(ConfigurationKeys.acmeExternalAccountKeyID), validated(ConfigurationKeys.acmeExternalAccountMACKey)) {
        case (let keyID?, let macKey?): acme.externalAccount = .init(keyID: keyID, macKey: macKey)
        case (nil, nil): break
        case (nil, _?):
            report(
                ConfigurationKeys.acmeExternalAccountKeyID.path(), problem: "is missing", expected: "the EAB key ID, with server.tls.acme.externalAccountMacKey"
            )
        case (_?, nil):
            if !isPresent(ConfigurationKeys.acmeExternalAccountMACKey) {
                report(
                    ConfigurationKeys.acmeExternalAccountMACKey.path(), problem: "is missing",
                    expected: "the EAB HMAC key, with server.tls.acme.externalAccountKeyID")
            }
        }
        let namesKey = ConfigurationKeys.acmeNames
        if let names = list(namesKey) {
            acme.names = names
        } else {
            acme.names = [configuration.publicBaseURL, configuration.pivotBaseURL].compactMap { url in
                url.flatMap(WebAddress.init).flatMap { ConfigurationValidators.certificateName($0.host) }
            }
        }
        var seen = Set<String>()
        acme.names = acme.names.filter { seen.insert($0).inserted }
        if acme.names.isEmpty {
            report(
                namesKey.path(), problem: "is missing, and publicBaseURL names no host a CA issues for (\(configuration.publicBaseURL))",
                expected: namesKey.expected)
        }
        if configuration.server.tls != nil || isPresent(ConfigurationKeys.tlsCertificatePath) || isPresent(ConfigurationKeys.tlsPrivateKeyPath) {
            report(
                namesKey.path().dropLast(), problem: "is set beside server.tls.certificatePath: the certificate comes from one or the other",
                expected: "either server.tls.acme or the certificate files")
        }
        if acme.challenge == .http, configuration.server.httpPort == nil {
            report(
                ConfigurationKeys.httpPort.path(), problem: "is missing: server.tls.acme.challenge is http-01, answered on the plain port",
                expected: "the plain port the CA reaches as port 80, such as 80")
        }
        if let trusted = acme.trustedCertificatesPath, !FileManager.default.isReadableFile(atPath: trusted) {
            report(
                ConfigurationKeys.acmeTrustedCertificatesPath.path(), problem: "\(trusted) cannot be read",
                expected: ConfigurationKeys.acmeTrustedCertificatesPath.expected)
        }
        return acme
    }
}
