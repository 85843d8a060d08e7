import LinkDomainCore
import LinkDomainStorage
import Logging
import NIOCore

/// The mail machinery a configuration asks for: the outbox that stores mails and the service that
/// delivers them. With a relay, both; in development without one, every mail is stored and listed
/// as usual but logged instead of sent ("logged, not sent"); in a deployment without one, none
/// (the email action API says mail is not configured).
public struct MailSetup: Sendable {
    public let outbox: MailOutbox?
    public let delivery: MailDeliveryService?

    public static func make(
        _ configuration: LinkDomainConfiguration, queue: any MailQueueStore, budgets: (any BudgetStore)? = nil,
        clock: any WallClock, metrics: LinkMetrics, logger: Logger
    ) throws -> MailSetup {
        let mail = configuration.mail
        guard mail.relay != nil || configuration.mode == .development, let sender = configuration.mailSender else {
            return MailSetup(outbox: nil, delivery: nil)
        }
        let client = try mail.relay.map { try smtpClient(configuration, relay: $0) }
        let delivery = MailDeliveryService(
            client: client, queue: queue, clock: clock,
            policy: MailRetryPolicy(initialDelay: Int64(mail.retryInitialSeconds), retryFor: Int64(mail.retryForSeconds)),
            metrics: metrics, logger: logger)
        let signer = try dkimSigner(configuration, sender: sender)
        let composer = try mailComposer(configuration, sender: sender)
        let outbox = MailOutbox(
            composer: composer, signer: signer, queue: queue, clock: clock, metrics: metrics, stored: { delivery.nudge() },
            perRecipient: Budget(name: "mail-recipient", limit: mail.perRecipientPerHour, windowSeconds: 3600, shared: budgets, clock: clock),
            perClient: Budget(name: "mail-client", limit: mail.perClientPerHour, windowSeconds: 3600, shared: budgets, clock: clock),
            logsOnly: configuration.mailIsOnlyLogged)
        return MailSetup(outbox: outbox, delivery: delivery)
    }

    /// The relay's client as the configuration describes it.
    static func smtpClient(_ configuration: LinkDomainConfiguration, relay: SMTPRelay) throws -> SMTPClient {
        try SMTPClient(
            relay: relay, heloName: configuration.publicHost, timeout: .seconds(Int64(configuration.mail.timeoutSeconds)),
            trustedCertificates: configuration.mail.trustedCertificatesPath)
    }

    /// The DKIM signer of `mail.dkim`, if any.
    static func dkimSigner(_ configuration: LinkDomainConfiguration, sender: MailSender) throws -> DKIMSigner? {
        try configuration.mail.dkim.map { dkim in
            DKIMSigner(key: try DKIMKey(file: dkim.privateKeyPath), domain: dkim.domain ?? sender.address.domain, selector: dkim.selector)
        }
    }

    static func mailComposer(_ configuration: LinkDomainConfiguration, sender: MailSender) throws -> MailComposer {
        try MailComposer(
            sender: sender, appName: configuration.appName, branding: configuration.branding, overrides: configuration.mail.templatesDirectory,
            defaultLanguage: configuration.defaultLanguage)
    }
}

/// `linkdomain mail test` and `linkdomain check`: the relay tried directly, and the DNS records to publish.
public enum MailCheck {
    /// Why a test mail could not be sent.
    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    /// Sends the test mail to `address` straight through the relay (not the queue): nil when the
    /// relay took it, otherwise what went wrong, quoting the relay.
    public static func sendTestMail(_ configuration: LinkDomainConfiguration, to address: String) async throws(Failure) -> String {
        guard let relay = configuration.mail.relay else { throw Failure(description: "mail.smtpURL is not set: there is no relay to test") }
        guard let recipient = MailAddress(address) else { throw Failure(description: "\(address) is not an email address") }
        guard let sender = configuration.mailSender else { throw Failure(description: "mail.from is not set and the public host makes no address") }
        do {
            let now = Int(SystemClock().nowSeconds)
            var data = try MailSetup.mailComposer(configuration, sender: sender)
                .compose(.init(kind: .test, language: nil, recipient: recipient, email: recipient.value, newEmail: nil, link: nil), now: now).rendered()
            if let signer = try MailSetup.dkimSigner(configuration, sender: sender) { data = try signer.sign(data, time: now) }
            let client = try MailSetup.smtpClient(configuration, relay: relay)
            if let failure = await client.deliver([OutgoingMail(from: sender.address, to: recipient, data: data)]).first ?? nil {
                throw Failure(description: "\(relay.redacted): \(failure.description)")
            }
            return "test mail to \(recipient.value) accepted by \(relay.redacted)"
        } catch let failure as Failure {
            throw failure
        } catch {
            throw Failure(description: "\(error)")
        }
    }

    /// What `check` prints about mail: where it goes, and the DNS records that make it trusted.
    public static func summary(_ configuration: LinkDomainConfiguration) -> String {
        let mail = configuration.mail
        guard let relay = mail.relay, let sender = configuration.mailSender else {
            return configuration.mode == .development ? "mail: no relay (mail.smtpURL); mails are logged" : "mail: off (no mail.smtpURL)"
        }
        var lines = ["mail: from \(sender.address.value) through \(relay.redacted)"]
        let domain = sender.address.domain
        lines.append("  SPF:   \(domain) TXT \"v=spf1 include:<your relay's SPF domain> -all\"")
        if let dkim = mail.dkim, let key = try? DKIMKey(file: dkim.privateKeyPath) {
            lines.append("  DKIM:  \(dkim.selector)._domainkey.\(dkim.domain ?? domain) TXT \"\(key.dnsRecord)\"")
        } else {
            lines.append("  DKIM:  not signing (mail.dkim.privateKeyPath)")
        }
        lines.append("  DMARC: _dmarc.\(domain) TXT \"v=DMARC1; p=quarantine; adkim=r; aspf=r\"")
        return lines.joined(separator: "\n")
    }
}
