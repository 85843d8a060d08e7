/// The `mail.*`, `branding.*` and `pages.*` keys (``ConfigurationKeys/all`` lists them in their place).
extension ConfigurationKeys {
    package static let mailSMTPURL = ConfigurationKey(
        "mail.smtpURL", .url, default: .none, secret: true,
        expected: "a URL such as \"smtp://user:password@relay.example.com:587\" (STARTTLS) or \"smtps://...:465\"",
        validate: { SMTPRelay(url: $0) == nil ? nil : $0 },
        "The relay mails leave through: `smtp://user:password@host:587` (STARTTLS, required unless the relay is on this machine) or `smtps://...:465` (TLS from the start); user and password percent-encoded. Without it no mail is sent: in development the embedded backend's links are logged, as the emulator does."
    )
    package static let mailFrom = ConfigurationKey(
        "mail.from", .string, default: .described("`noreply@` the public host"), expected: "an address such as \"noreply@example.com\"",
        validate: { MailAddress($0)?.value },
        "The sender's address (`From:`, the envelope, `Message-ID`'s domain). Use a domain whose SPF and DKIM records name your relay.")
    package static let mailFromName = ConfigurationKey(
        "mail.fromName", .string, default: .described("`branding.appName`"),
        "The sender's name recipients see.")
    package static let mailTrustedCertificatesPath = ConfigurationKey(
        "mail.trustedCertificatesPath", .path, default: .none, expected: "a readable PEM file of certificate authorities",
        "Certificate authorities trusted for the relay's TLS besides the system's (a private relay's own CA).")
    package static let mailDKIMPrivateKeyPath = ConfigurationKey(
        "mail.dkim.privateKeyPath", .path, default: .none, expected: "a PEM private key: RSA of 1024+ bits (2048 recommended) or Ed25519",
        "Sign every mail with DKIM (relaxed/relaxed): an RSA (`rsa-sha256`) or Ed25519 (`ed25519-sha256`) PEM key. `linkdomain check` prints the DNS record to publish."
    )
    package static let mailDKIMSelector = ConfigurationKey(
        "mail.dkim.selector", .string, default: .string("linkdomain"), expected: "a DNS label such as \"linkdomain\" or \"mail2026\"",
        validate: ConfigurationValidators.dnsLabel,
        "The record's name: the public key lives at `SELECTOR._domainkey.DOMAIN`.")
    package static let mailDKIMDomain = ConfigurationKey(
        "mail.dkim.domain", .string, default: .described("`mail.from`'s domain"), expected: "a host name such as \"example.com\"",
        validate: ConfigurationValidators.hostName,
        "The signing domain (`d=`); it must be `mail.from`'s domain or a parent of it for DMARC.")
    package static let mailTemplatesDirectory = ConfigurationKey(
        "mail.templatesDirectory", .path, default: .none, expected: "a directory with templates/*.mustache and/or locales/*.json shaped like Public/mail",
        "Override mail templates or strings by file: `templates/ACTION.html.mustache` and `.txt.mustache` (ACTION: `sign-in`, `reset-password`, `verify-email`, `change-email`, `recover-email`, `revert-second-factor`, `test`; `action.*` for all) and `locales/LANG.json` (merged over the built-in strings)."
    )
    package static let mailTimeoutSeconds = ConfigurationKey(
        "mail.timeoutSeconds", .integer(1...300), default: .integer(30), expected: "1 to 300 seconds",
        "How long the relay may take over connecting or any one reply.")
    package static let mailRetryForSeconds = ConfigurationKey(
        "mail.retryForSeconds", .integer(60...604_800), default: .integer(3600), expected: "60 to 604800 seconds",
        "How long a mail the relay could not take (connection refused, timeout, 4xx) is retried, with exponential backoff and a last attempt at the window's end, before it is recorded as failed."
    )
    package static let mailRetryInitialSeconds = ConfigurationKey(
        "mail.retryInitialSeconds", .integer(1...3600), default: .integer(10), expected: "1 to 3600 seconds",
        "The first retry's delay; each next one waits twice as long (at most 15 minutes).")
    package static let mailPerRecipientPerHour = ConfigurationKey(
        "mail.perRecipientPerHour", .integer(1...10_000), default: .integer(5), expected: "1 to 10000",
        "Mails queued to one mailbox in an hour, whichever path mails (email action API, the embedded backend's `sendOobCode`, the pages' \"send me a link\", the address-change notice); `victim+tag@` counts as `victim@`. Past it, `TOO_MANY_ATTEMPTS_TRY_LATER`."
    )
    package static let mailPerClientPerHour = ConfigurationKey(
        "mail.perClientPerHour", .integer(1...1_000_000), default: .integer(30), expected: "1 to 1000000",
        "Mails one client address may have queued in an hour, over every path that mails.")
    package static let brandingAppName = ConfigurationKey(
        "branding.appName", .string, default: .described("the public host"),
        "The app's name, as mails (subjects, sender) and pages (every title, the header) say it.")
    package static let brandingAccentColor = ConfigurationKey(
        "branding.accentColor", .string, default: .string("#0b57d0"), expected: "a colour such as \"#0b57d0\"", validate: ConfigurationValidators.hexColor,
        "The buttons' colour, `#rrggbb` (keep white text readable on it).")
    package static let brandingLogoURL = ConfigurationKey(
        "branding.logoURL", .url, default: .none, expected: "an https:// URL of an image", validate: ConfigurationValidators.imageURL,
        "The app's logo (https), shown at the top of mails and pages, and the pages' icon.")
    package static let brandingSupportURL = ConfigurationKey(
        "branding.supportURL", .url, default: .none, expected: "an https:// URL or mailto:address", validate: ConfigurationValidators.footerLink,
        "Where people get help: linked in every page's footer.")
    package static let brandingPrivacyURL = ConfigurationKey(
        "branding.privacyURL", .url, default: .none, expected: "an https:// URL", validate: ConfigurationValidators.footerLink,
        "The privacy policy, linked in every page's footer.")
    package static let brandingTermsURL = ConfigurationKey(
        "branding.termsURL", .url, default: .none, expected: "an https:// URL", validate: ConfigurationValidators.footerLink,
        "The terms of service, linked in every page's footer.")
    package static let brandingHomeURL = ConfigurationKey(
        "branding.homeURL", .url, default: .none, expected: "an https:// URL",
        validate: { $0.hasPrefix("mailto:") ? nil : ConfigurationValidators.footerLink($0) },
        "The app's website: \"Back to {site}\" on pages that have nowhere else to lead (a finished action without a continue URL, an error).")
    package static let brandingSupportEmail = ConfigurationKey(
        "branding.supportEmail", .string, default: .none, expected: "an address such as \"support@example.com\"", validate: { MailAddress($0)?.value },
        "Where mails tell people to write with questions.")
    package static let pagesDefaultLanguage = ConfigurationKey(
        "pages.defaultLanguage", .string, default: .string("en"), expected: "one of the 42 languages of docs/design/languages.md, such as \"de\" or \"pt-PT\"",
        validate: { Languages.spoken(Substring($0)) },
        "The language of pages, mails and the console when neither the link's `lang`, the request's language nor the browser's `Accept-Language` names one spoken here (Firebase's template language)."
    )
}
