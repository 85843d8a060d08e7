import Foundation

/// Reading `mail` and `branding`.
extension ValidatingReader {
    package mutating func readMail(baseDirectory: String?) -> LinkDomainConfiguration.Mail {
        var mail = LinkDomainConfiguration.Mail()
        mail.relay = validated(ConfigurationKeys.mailSMTPURL).flatMap(SMTPRelay.init(url:))
        mail.from = validated(ConfigurationKeys.mailFrom).flatMap(MailAddress.init)
        mail.fromName = string(ConfigurationKeys.mailFromName)
        mail.trustedCertificatesPath = path(ConfigurationKeys.mailTrustedCertificatesPath, baseDirectory: baseDirectory)
        if let file = mail.trustedCertificatesPath, FileManager.default.contents(atPath: file) == nil {
            report(
                ConfigurationKeys.mailTrustedCertificatesPath.path(), problem: "\(file) cannot be read",
                expected: ConfigurationKeys.mailTrustedCertificatesPath.expected)
        }
        let selector = validated(ConfigurationKeys.mailDKIMSelector) ?? "linkdomain"
        let domain = validated(ConfigurationKeys.mailDKIMDomain)
        if let keyPath = path(ConfigurationKeys.mailDKIMPrivateKeyPath, baseDirectory: baseDirectory) {
            let key = ConfigurationKeys.mailDKIMPrivateKeyPath
            do {
                _ = try DKIMKey(file: keyPath)
                mail.dkim = .init(privateKeyPath: keyPath, selector: selector, domain: domain)
            } catch {
                report(key.path(), problem: "\(keyPath) \(error.description)", expected: key.expected)
            }
        }
        mail.templatesDirectory = path(ConfigurationKeys.mailTemplatesDirectory, baseDirectory: baseDirectory)
        mail.timeoutSeconds = integer(ConfigurationKeys.mailTimeoutSeconds)
        mail.retryForSeconds = integer(ConfigurationKeys.mailRetryForSeconds)
        mail.retryInitialSeconds = integer(ConfigurationKeys.mailRetryInitialSeconds)
        mail.perRecipientPerHour = integer(ConfigurationKeys.mailPerRecipientPerHour)
        mail.perClientPerHour = integer(ConfigurationKeys.mailPerClientPerHour)
        return mail
    }

    package mutating func readBranding() -> LinkDomainConfiguration.Branding {
        var branding = LinkDomainConfiguration.Branding()
        branding.appName = string(ConfigurationKeys.brandingAppName).flatMap { $0.isEmpty ? nil : $0 }
        branding.accentColor = validated(ConfigurationKeys.brandingAccentColor) ?? branding.accentColor
        branding.logoURL = validated(ConfigurationKeys.brandingLogoURL)
        branding.supportEmail = validated(ConfigurationKeys.brandingSupportEmail)
        branding.supportURL = validated(ConfigurationKeys.brandingSupportURL)
        branding.homeURL = validated(ConfigurationKeys.brandingHomeURL)
        branding.privacyURL = validated(ConfigurationKeys.brandingPrivacyURL)
        branding.termsURL = validated(ConfigurationKeys.brandingTermsURL)
        return branding
    }
}
