extension LinkDomainConfiguration {
    /// `mail`: how mails are written, signed and delivered.
    public struct Mail: Sendable, Equatable {
        /// Where mails leave; nil sends none. Its password is a secret.
        public var relay: SMTPRelay?
        /// `From:` and the envelope sender; nil: `noreply@` the public host.
        public var from: MailAddress?
        /// The sender's display name; nil: the app's name.
        public var fromName: String?
        /// Certificate authorities trusted for the relay besides the system's.
        public var trustedCertificatesPath: String?
        public var dkim: DKIM?
        /// Templates and strings that replace the built-in ones, file by file.
        public var templatesDirectory: String?
        public var timeoutSeconds = 30
        public var retryForSeconds = 3600
        public var retryInitialSeconds = 10
        public var perRecipientPerHour = 5
        public var perClientPerHour = 30
        public init() {}

        /// DKIM signing: the key, and where its public half is published.
        public struct DKIM: Sendable, Equatable {
            public var privateKeyPath: String
            public var selector: String
            /// nil: `from`'s domain.
            public var domain: String?

            package init(privateKeyPath: String, selector: String, domain: String? = nil) {
                self.privateKeyPath = privateKeyPath
                self.selector = selector
                self.domain = domain
            }
        }
    }

    /// `branding`: how mails (and pages) name and show the app.
    public struct Branding: Sendable, Equatable {
        /// nil: the public host.
        public var appName: String?
        public var accentColor = "#0b57d0"
        public var logoURL: String?
        public var supportEmail: String?
        /// Footer links of the pages.
        public var supportURL: String?
        public var privacyURL: String?
        public var termsURL: String?
        /// The app's website, where pages with nowhere else to lead send people back.
        public var homeURL: String?
        public init() {}
    }

    /// The app's name as mails say it.
    public var appName: String { branding.appName ?? publicHost }

    /// The sender: `mail.from`, else `noreply@` the public host.
    public var mailSender: MailSender? {
        guard let address = mail.from ?? MailAddress("noreply@" + publicHost) else { return nil }
        return MailSender(name: mail.fromName ?? appName, address: address)
    }
}
