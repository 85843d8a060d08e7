import LinkDomainCore
import LinkDomainStorage

/// The relay's health as the overview says it, from the queue alone: none configured, nothing
/// tried yet, delivering (the last mail sent), or not delivering (a mail queued after the last
/// one sent has been refused or not taken, with the relay's last answer).
enum RelayHealth: Equatable {
    case notConfigured
    case quiet
    case delivering(lastSentAt: Int64)
    case failing(since: Int64, answer: String)

    /// `lastSent`: the newest mail sent; `tried`: the newest mails waiting or given up.
    static func of(relayConfigured: Bool, lastSent: MailListing?, tried: [MailListing]) -> RelayHealth {
        guard relayConfigured else { return .notConfigured }
        let sentAt = lastSent.map { $0.finishedAt ?? $0.queuedAt } ?? .min
        let refused = tried.filter { $0.attempts > 0 && $0.lastError != nil && $0.queuedAt > sentAt }
        if let newest = refused.max(by: { $0.queuedAt < $1.queuedAt }), let oldest = refused.min(by: { $0.queuedAt < $1.queuedAt }) {
            return .failing(since: oldest.queuedAt, answer: newest.lastError ?? "")
        }
        if let lastSent { return .delivering(lastSentAt: lastSent.finishedAt ?? lastSent.queuedAt) }
        return .quiet
    }

    /// The CSS state and the sentence.
    func rendered(_ renderer: ConsoleRenderer) -> (state: String, text: String) {
        switch self {
        case .notConfigured: ("none", renderer[.relayNotConfigured])
        case .quiet: ("quiet", renderer[.relayQuiet])
        case .delivering(let at): ("ok", renderer.format(.relayDelivering, ["time": RFC3339.readable(milliseconds: at)]))
        case .failing(let since, let answer):
            ("failing", renderer.format(.relayFailing, ["time": RFC3339.readable(milliseconds: since), "answer": answer]))
        }
    }
}

extension ConsoleController {
    /// The overview's relay line; the queue's newest sent and newest waiting or failed mails.
    func relayHealth() async -> (state: String, text: String) {
        let sent = try? await mailQueue.list(MailQuery(state: .sent, limit: 1))
        let queued = (try? await mailQueue.list(MailQuery(state: .queued, limit: 20))) ?? []
        let failed = (try? await mailQueue.list(MailQuery(state: .failed, limit: 20))) ?? []
        let relayConfigured = configuration.mail.relay != nil
        return RelayHealth.of(relayConfigured: relayConfigured, lastSent: sent?.first, tried: queued + failed).rendered(renderer)
    }
}
