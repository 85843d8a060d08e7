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
    /// Mails to one address an hour (`mail.perRecipientPerHour`), whichever API asks for them.
    let perRecipient: RateLimiter

    /// Whether one more mail may go to `recipient` now; counts it when it may. Asked before a code
    /// is made, so that a refused request leaves nothing behind.
    public func admit(_ recipient: String) async -> Bool {
        await perRecipient.take(recipient.lowercased()) == nil
    }

    /// Stores the mail `content` describes; returns its queue ID.
    @discardableResult
    public func send(_ content: MailComposer.Content) async throws -> String {
        let now = Int(clock.nowSeconds)
        let message = composer.compose(content, now: now)
        var data = message.rendered()
        if let signer { data = try signer.sign(data, time: now) }
        let id = RandomToken.make(bytes: 16)
        try await queue.enqueue(QueuedMail(id: id, sender: message.sender.address.value, recipient: message.recipient.value, message: data,
                                           kind: content.kind.rawValue, queuedAt: clock.nowMilliseconds()))
        metrics.mail("queued", kind: content.kind.rawValue)
        stored()
        return id
    }
}
