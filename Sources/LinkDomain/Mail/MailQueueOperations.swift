import LinkDomainCore
import LinkDomainStorage
import Logging

/// What an operator does to the mail queue, whoever asks: the console's Mail page and
/// `/v1/mail` call these, so a retry or a discard is the same change with the same audit line.
struct MailQueueOperations: Sendable {
    let store: any MailAdminStore
    let clock: any WallClock
    /// Wakes the mail sender after a retry, so that it need not wait for its next look.
    var wakeSender: @Sendable () -> Void = {}

    func list(_ query: MailQuery) async throws(StoreError) -> [MailListing] {
        try await store.mails(query)
    }

    /// Makes a waiting or failed mail due now; false when there is none, or a sender holds it.
    func retry(_ id: String, actor: String, logger: Logger) async throws(StoreError) -> Bool {
        guard try await store.retryNow(id: id, now: clock.nowMilliseconds()) else { return false }
        AuditLog.record(actor: actor, action: "mail.retry", object: id, logger: logger)
        wakeSender()
        return true
    }

    /// Removes a waiting or failed mail; false when there is none, or a sender holds it.
    func discard(_ id: String, actor: String, logger: Logger) async throws(StoreError) -> Bool {
        guard try await store.discard(id: id, now: clock.nowMilliseconds()) else { return false }
        AuditLog.record(actor: actor, action: "mail.discard", object: id, logger: logger)
        return true
    }

    /// Records that `actor` was shown the addresses of a page of mails.
    func addressesShown(_ state: MailState?, actor: String, logger: Logger) {
        AuditLog.record(actor: actor, action: "mail.showAddresses", object: state?.rawValue ?? "all", logger: logger)
    }

    /// A search of the queue by recipient shows whose mails are there: audited as showing them is
    /// (the line names who searched, never the address).
    func recipientSearched(actor: String, logger: Logger) {
        AuditLog.record(actor: actor, action: "mail.searchRecipient", object: "-", logger: logger)
    }

    /// `a•••@example.com`: enough to tell mails apart, not enough to read the address.
    static func masked(_ address: String) -> String {
        guard let at = address.lastIndex(of: "@"), let first = address.first, at != address.startIndex else { return "•••" }
        return "\(first)•••\(address[at...])"
    }
}
