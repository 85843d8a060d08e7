import LinkDomainCore
import LinkDomainStorage
import Logging

/// Where mails go to be sent: written, signed, and stored in the queue before the caller hears
/// back, so that nothing acknowledged is ever lost.
public struct MailOutbox: Sendable {
    let composer: MailComposer
    let signer: DKIMSigner?
    let queue: any MailQueueStore
    let clock: any WallClock
    let metrics: LinkMetrics
    /// Called after each mail is stored, so the sender need not wait for its next look.
    let stored: @Sendable () -> Void
    /// Mails to one mailbox an hour (`mail.perRecipientPerHour`), whichever API asks for them, on
    /// whichever replica (the budget is in the shared database with PostgreSQL).
    let perRecipient: Budget
    /// Mails one client address may ask for an hour (`mail.perClientPerHour`), whichever API it asks through.
    let perClient: Budget
    /// Development without a relay: mails are stored and listed but only logged, never sent, so
    /// no mailbox can be flooded and no budget applies (a developer's tests send many).
    let logsOnly: Bool

    /// Whether one more mail may go to `recipient` now at the request of `client` (its address as
    /// the abuse limits see it; empty for the service's own notices, which only the recipient's
    /// budget bounds); counts it when it may. Asked before a code is made, so that a refused
    /// request leaves nothing behind.
    public func admit(_ recipient: String, client: String) async -> Bool {
        if logsOnly { return true }
        guard await admit(client: client) else { return false }
        return await perRecipient.take(Self.mailbox(recipient)) == nil
    }

    /// Whether `client` (empty: the service itself) may ask for one more mail; counts it when it
    /// may. For a caller that refuses an over-budget client before costlier work.
    public func admit(client: String) async -> Bool {
        if client.isEmpty || logsOnly { return true }
        return await perClient.take(client) == nil
    }

    /// The mailbox an address delivers to, as budgets count it: lower-cased, with a sub-address
    /// (`victim+1@`, `victim+2@`...) folded into its mailbox, which every one of them fills.
    static func mailbox(_ address: String) -> String {
        let lowered = address.lowercased()
        guard let at = lowered.lastIndex(of: "@") else { return lowered }
        let local = lowered[..<at]
        let mailbox = local.firstIndex(of: "+").map { local[..<$0] } ?? local
        return mailbox.isEmpty ? lowered : String(mailbox) + lowered[at...]
    }

    /// Stores the mail `content` describes; returns its queue ID.
    @discardableResult
    public func send(_ content: MailComposer.Content) async throws -> String {
        let mail = try prepare(content)
        try await queue.enqueue(mail)
        didQueue([mail])
        return mail.id
    }

    /// The mail `content` describes, written and signed, for a caller that stores it in the same
    /// transaction as what it tells of (``AuthWrites/mails``); that caller then calls ``didQueue(_:)``.
    public func prepare(_ content: MailComposer.Content) throws -> QueuedMail {
        let now = Int(clock.nowSeconds)
        let message = composer.compose(content, now: now)
        var data = message.rendered()
        if let signer { data = try signer.sign(data, time: now) }
        return QueuedMail(
            id: RandomToken.make(bytes: 16), sender: message.sender.address.value, recipient: message.recipient.value, message: data,
            kind: content.kind.rawValue, queuedAt: clock.nowMilliseconds(), language: message.language ?? "en")
    }

    /// Counts mails just stored and wakes the sender for them.
    public func didQueue(_ mails: [QueuedMail]) {
        guard !mails.isEmpty else { return }
        for mail in mails { metrics.mail("queued", kind: mail.kind) }
        stored()
    }
}
