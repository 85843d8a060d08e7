import LinkDomainCore
import LinkDomainStorage
import Logging
import NIOCore
import ServiceLifecycle
import Synchronization

/// Delivers the queue: claims the mails that are due (across replicas, each once), hands them to
/// the relay, and records each outcome: sent, retried later with backoff, or failed for good.
/// Logs say how many and why, never an address, a code or a body (except in development without a
/// relay, where the log is the mail: ``client``).
public final class MailDeliveryService: Service, Sendable {
    /// The relay, or nil in development without one: mails are then logged (links included, as the
    /// emulator does) and listed as "logged, not sent".
    let client: SMTPClient?
    let queue: any MailQueueStore
    let clock: any WallClock
    let policy: MailRetryPolicy
    let metrics: LinkMetrics
    let logger: Logger
    /// How many mails one connection carries.
    static let batchSize = 20
    /// How often the queue is looked at without a nudge (retries fall due, other replicas store mails).
    static let pollInterval = Duration.milliseconds(500)
    /// The sender's wait for work (``pause()``), kept so that a nudge between a look at the queue
    /// and the wait is never lost, and so that a wait's end (its timer, or shutdown) can never
    /// leak into the next wait.
    private let wakeUp = Mutex(WakeUp())
    let activity: ServerActivity

    struct WakeUp {
        /// The wait in progress.
        var waiting: CheckedContinuation<Void, Never>?
        /// A mail was stored while nobody waited: the next wait returns at once.
        var nudged = false
        /// The current wait's timer fired before it began to wait. Cleared when a wait begins: a
        /// wait's timer has finished before the wait returns, so it cannot reach the next one.
        var pauseEnded = false
    }

    init(
        client: SMTPClient?, queue: any MailQueueStore, clock: any WallClock, policy: MailRetryPolicy, metrics: LinkMetrics,
        activity: ServerActivity = .shared, logger: Logger
    ) {
        self.client = client
        self.activity = activity
        self.queue = queue
        self.clock = clock
        self.policy = policy
        self.metrics = metrics
        self.logger = logger
    }

    /// A mail was stored: look now rather than at the next poll.
    func nudge() {
        wakeUp.withLock { state in
            if let waiting = state.waiting {
                state.waiting = nil
                waiting.resume()
            } else {
                state.nudged = true
            }
        }
    }

    /// The current wait is over (its half second passed, or the service is stopping). Unlike a
    /// nudge, this says nothing about the queue and is never kept for the next wait (a leaked
    /// wake-up here once made every later wait return at once, a busy loop).
    private func endPause() {
        wakeUp.withLock { state in
            if let waiting = state.waiting {
                state.waiting = nil
                waiting.resume()
            } else {
                state.pauseEnded = true
            }
        }
    }

    /// How long one connection may carry a batch before it is cut (its unsent mails then retry):
    /// what bounds a claim's lease, however slowly a relay answers.
    var sessionDeadline: TimeAmount { .seconds(max(120, (client?.timeout.nanoseconds ?? 0) / 1_000_000_000 * 10)) }

    public func run() async throws {
        do {
            try await queue.releaseAbandonedClaims()
        } catch {
            logger.error("mail queue unavailable", metadata: ["error": "\(error)"])
        }
        var lastSummary: Int64 = 0
        // Mails waiting (due or not), as the last summary counted them; unknown until one is read.
        var queued = 1
        while !Task.isShuttingDownGracefully && !Task.isCancelled {
            var delivered = 0
            do {
                let now = clock.nowMilliseconds()
                // The session is cut at its deadline, so the claim outlives any delivery by a minute.
                let lease = now + sessionDeadline.nanoseconds / 1_000_000 + 60_000
                let batch = try await queue.claimDue(now: now, limit: Self.batchSize, leaseUntil: lease)
                if !batch.isEmpty {
                    await deliver(batch)
                    delivered = batch.count
                }
                // After a delivery, at once: a mail sent back for a retry keeps the look going.
                if now - lastSummary >= 5000 || delivered > 0 {
                    lastSummary = now
                    let summary = try await queue.summary()
                    queued = summary.queued
                    metrics.mailQueue(depth: summary.queued, oldestAgeSeconds: summary.oldestQueuedAt.map { Double(max(0, now - $0)) / 1000 } ?? 0)
                }
            } catch {
                logger.error("mail queue unavailable", metadata: ["error": "\(error)"])
            }
            if delivered < Self.batchSize { await pause(mayRest: queued == 0) }
        }
    }

    /// Until a nudge, half a second, or shutdown. With nothing queued on a quiet server
    /// (``ServerActivity``), the half second becomes the server's next visitor: a mail stored
    /// here nudges, and one stored by another replica is that replica's to send.
    private func pause(mayRest: Bool) async {
        wakeUp.withLock { $0.pauseEnded = false }
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                await withCheckedContinuation { continuation in
                    self.wakeUp.withLock { state in
                        if state.nudged || state.pauseEnded {
                            state.nudged = false
                            continuation.resume()
                        } else {
                            state.waiting = continuation
                        }
                    }
                }
            }
            group.addTask {
                // Cancelled when the wait ended otherwise, or at shutdown: either way this wait is over.
                try? await Task.sleep(for: Self.pollInterval)
                if mayRest { await cancelWhenGracefulShutdown { await self.activity.waitUntilActive() } }
                self.endPause()
            }
            await group.next()
            group.cancelAll()
            await group.waitForAll()
        }
    }

    private func deliver(_ batch: [QueuedMail]) async {
        let outgoing = batch.compactMap { mail -> OutgoingMail? in
            guard let from = MailAddress(mail.sender), let to = MailAddress(mail.recipient) else { return nil }
            return OutgoingMail(from: from, to: to, data: mail.message)
        }
        guard outgoing.count == batch.count else {
            for mail in batch where MailAddress(mail.sender) == nil || MailAddress(mail.recipient) == nil {
                await record(mail, .permanent("the stored addresses are not valid"))
            }
            return await deliver(batch.filter { MailAddress($0.sender) != nil && MailAddress($0.recipient) != nil })
        }
        guard let client else {
            // Development without a relay: the mail is logged, its link readable, and listed as such.
            for mail in batch {
                logger.info(
                    "mail logged, not sent (no relay in development: mail.smtpURL)",
                    metadata: [
                        "to": .string(mail.recipient), "kind": .string(mail.kind),
                        "text": .string(MIMEEncoding.plainText(of: mail.message) ?? mail.message),
                    ])
                await record(mail, nil, note: Self.loggedNote)
            }
            return
        }
        let outcomes = await client.deliver(outgoing, deadline: .now() + sessionDeadline)
        for (mail, outcome) in zip(batch, outcomes) { await record(mail, outcome) }
    }

    /// What the console lists beside a mail that was logged instead of sent.
    static let loggedNote = "Logged, not sent: no relay in development (mail.smtpURL)"

    /// A relay's reply as stored and logged: without addresses, links or codes (``RelayReply``).
    private func redacted(_ reason: String, _ mail: QueuedMail) -> String {
        RelayReply.redacted(reason, recipient: mail.recipient)
    }

    private func record(_ mail: QueuedMail, _ outcome: SMTPDeliveryError?, note: String? = nil) async {
        let now = clock.nowMilliseconds()
        do {
            switch outcome {
            case nil:
                try await queue.markSent(id: mail.id, now: now, note: note)
                metrics.mail(note == nil ? "sent" : "logged", kind: mail.kind)
            case .permanent(let reason)?:
                try await queue.markFailed(id: mail.id, reason: redacted(reason, mail), now: now)
                metrics.mail("failed", kind: mail.kind)
                logger.warning(
                    "mail refused by the relay",
                    metadata: [
                        "id": .string(mail.id), "kind": .string(mail.kind),
                        "reason": .string(redacted(reason, mail)),
                    ])
            case let failure?:
                if let next = policy.nextAttempt(afterAttempts: mail.attempts, queuedAt: mail.queuedAt, now: now) {
                    try await queue.reschedule(id: mail.id, at: next, reason: redacted(failure.description, mail))
                    metrics.mail("retried", kind: mail.kind)
                    logger.notice(
                        "mail delivery deferred",
                        metadata: [
                            "id": .string(mail.id), "attempt": "\(mail.attempts)",
                            "reason": .string(redacted(failure.description, mail)),
                        ])
                } else {
                    try await queue.markFailed(
                        id: mail.id, reason: "gave up after \(mail.attempts) attempts: \(redacted(failure.description, mail))",
                        now: now)
                    metrics.mail("failed", kind: mail.kind)
                    logger.warning(
                        "mail given up",
                        metadata: [
                            "id": .string(mail.id), "kind": .string(mail.kind),
                            "reason": .string(redacted(failure.description, mail)),
                        ])
                }
            }
        } catch {
            logger.error("cannot record a mail's delivery", metadata: ["id": .string(mail.id), "error": "\(error)"])
        }
    }
}
