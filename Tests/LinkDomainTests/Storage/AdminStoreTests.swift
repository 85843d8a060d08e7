import Foundation
import Testing

@testable import LinkDomain
@testable import LinkDomainCore
@testable import LinkDomainStorage

/// What the console and the listing APIs read and change, on SQLite and PostgreSQL alike.
@Suite("Short links and mails as operators see them")
struct AdminStoreTests {
    static func link(_ suffix: String, createdAt: Int64) -> ShortLinkRecord {
        ShortLinkRecord(suffix: suffix, longLinkQuery: "link=https%3A%2F%2Fexample.com%2F\(suffix)&apn=com.example.mail", createdAt: createdAt, origin: .api)
    }

    @Test("pages in both orders, search, clicks counted with events, daily totals", arguments: StoreKind.available)
    func listing(kind: StoreKind) async throws {
        try await kind.withStore { store in
            let admin = try #require(store as? any LinkAdminStore)
            let tag = StoreSuiteTests.unique("lst").replacingOccurrences(of: "-", with: "")
            // Far in the future: links other tests left in a shared database sort after these.
            let base = Int64(9_000_000_000_000) + Int64.random(in: 0..<1_000_000)
            let suffixes = (0..<5).map { "\(tag)x\($0)" }
            for (offset, suffix) in suffixes.enumerated() { try await store.insertShortLink(Self.link(suffix, createdAt: base + Int64(offset))) }
            let day = 30_000 + Int.random(in: 0..<1000)
            try await store.recordEvents([
                LinkEventTally(suffix: suffixes[1], day: day, platform: .iOS, event: .click, count: 7),
                LinkEventTally(suffix: suffixes[1], day: day, platform: .iOS, event: .redirectToApp, count: 3),
                LinkEventTally(suffix: suffixes[3], day: day, platform: .android, event: .click, count: 2),
            ])
            let first = try await admin.shortLinks(ShortLinkQuery(search: .init(pasted: tag, hosts: []), order: .created, limit: 2))
            #expect(first.map(\.record.suffix) == [suffixes[4], suffixes[3]])
            let second = try await admin.shortLinks(
                ShortLinkQuery(search: .init(pasted: tag, hosts: []), order: .created, after: first.last?.cursor(for: .created), limit: 2))
            #expect(second.map(\.record.suffix) == [suffixes[2], suffixes[1]])
            let byClicks = try await admin.shortLinks(ShortLinkQuery(search: .init(pasted: tag, hosts: []), order: .clicks, limit: 2))
            #expect(byClicks.map(\.record.suffix) == [suffixes[1], suffixes[3]] && byClicks.map(\.clicks) == [7, 2])
            // Text in the long link finds it too; text nowhere finds nothing.
            #expect(
                try await admin.shortLinks(ShortLinkQuery(search: .init(pasted: "example.com%2F\(suffixes[2])", hosts: []))).map(\.record.suffix) == [
                    suffixes[2]
                ])
            #expect(try await admin.shortLinks(ShortLinkQuery(search: .init(pasted: "\(tag)-absent", hosts: []))).isEmpty)
            // A suffix in another case finds it; the URL inside a long link is found as typed; a named link is exact.
            #expect(
                try await admin.shortLinks(ShortLinkQuery(search: .init(pasted: suffixes[2].uppercased(), hosts: []))).map(\.record.suffix) == [suffixes[2]])
            #expect(
                try await admin.shortLinks(ShortLinkQuery(search: .init(pasted: "example.com/\(suffixes[2])", hosts: []))).map(\.record.suffix) == [suffixes[2]]
            )
            #expect(try await admin.shortLinks(ShortLinkQuery(search: .suffix(suffixes[2]))).map(\.record.suffix) == [suffixes[2]])
            #expect(try await admin.shortLinks(ShortLinkQuery(search: .suffix(suffixes[2].uppercased()))).isEmpty)
            let totals = try await admin.dailyEventTotals(fromDay: day).filter { $0.day == day }
            #expect(totals.contains { $0.platform == .iOS && $0.event == .click && $0.count >= 7 })
            let own = try await admin.dailyEventTotals(suffix: suffixes[1], fromDay: day)
            #expect(Set(own.map(\.count)) == [7, 3])
        }
    }

    @Test(
        "a disabled link is served as none; an updated one leads elsewhere; deleting removes it and its statistics; each change is listed",
        arguments: StoreKind.available)
    func changes(kind: StoreKind) async throws {
        try await kind.withStore { store in
            let admin = try #require(store as? any LinkAdminStore)
            let suffix = StoreSuiteTests.unique("chg").replacingOccurrences(of: "-", with: "")
            try await store.insertShortLink(Self.link(suffix, createdAt: 1))
            let before = try await admin.latestShortLinkChange()
            #expect(try await admin.setShortLinkDisabled(suffix: suffix, disabled: true, at: 5))
            #expect(try await store.shortLink(suffix: suffix) == nil)
            #expect(try await admin.shortLinkListing(suffix: suffix)?.disabled == true)
            #expect(try await admin.setShortLinkDisabled(suffix: suffix, disabled: false, at: 6))
            #expect(try await store.shortLink(suffix: suffix) != nil)
            #expect(try await admin.updateShortLink(suffix: suffix, longLinkQuery: "link=https%3A%2F%2Fexample.com%2Fnew", at: 6))
            #expect(try await store.shortLink(suffix: suffix)?.longLinkQuery == "link=https%3A%2F%2Fexample.com%2Fnew")
            #expect(try await !admin.updateShortLink(suffix: suffix + "x", longLinkQuery: "link=x", at: 6))
            try await store.recordEvents([LinkEventTally(suffix: suffix, day: 1, platform: .desktop, event: .click, count: 1)])
            #expect(try await admin.deleteShortLink(suffix: suffix, at: 7))
            #expect(try await admin.shortLinkListing(suffix: suffix) == nil)
            #expect(try await store.eventCounts(suffix: suffix, fromDay: 0).isEmpty)
            #expect(try await !admin.deleteShortLink(suffix: suffix, at: 8))
            #expect(try await !admin.setShortLinkDisabled(suffix: suffix, disabled: true, at: 8))
            let changes = try await admin.shortLinkChanges(after: before, limit: 1000).filter { $0.suffix == suffix }
            #expect(changes.count == 4 && changes.map(\.sequence) == changes.map(\.sequence).sorted())
        }
    }

    @Test(
        "mails by state or recipient, newest first; a failed mail kept for a retry; retry and discard leave a held mail alone", arguments: StoreKind.available)
    func mails(kind: StoreKind) async throws {
        try await kind.withStore { store in
            let queue = try #require(store as? any MailAdminStore)
            // Later than any other test's claims look, so that none takes these from a shared database.
            let base = Int64(8_000_000_000_000) + Int64.random(in: 0..<1_000_000_000)
            let ids = (0..<3).map { StoreSuiteTests.unique("adm-\($0)") }
            for (offset, id) in ids.enumerated() {
                try await queue.enqueue(
                    QueuedMail(
                        id: id, sender: "noreply@example.com", recipient: "\(id)@example.com", message: "Subject: x\r\n\r\nbody",
                        kind: "reset-password", queuedAt: base + Int64(offset), language: "pt-PT"))
            }
            try await queue.markFailed(id: ids[0], reason: "550 5.7.1 refused", now: base + 20)
            try await queue.markFailed(id: ids[1], reason: "550 5.7.1 refused", now: base + 20)
            let failed = try await queue.mails(MailQuery(state: .failed, limit: 1000)).filter { ids.contains($0.id) }
            #expect(
                failed.map(\.id) == [ids[1], ids[0]] && failed.allSatisfy { $0.lastError == "550 5.7.1 refused" && $0.attempts == 0 && $0.language == "pt-PT" })
            let paged = try await queue.mails(MailQuery(state: .failed, after: MailCursor(queuedAt: base + 1, id: ids[1]), limit: 1000)).filter {
                ids.contains($0.id)
            }
            #expect(paged.map(\.id) == [ids[0]])
            // By recipient, in any case and every state: the waiting mail and a waiting one's next attempt.
            let byRecipient = try await queue.mails(MailQuery(recipient: ids[2].uppercased(), limit: 10))
            #expect(byRecipient.map(\.id) == [ids[2]] && byRecipient.first?.state == .queued && byRecipient.first?.nextAttemptAt != nil)
            #expect(try await queue.mails(MailQuery(state: .failed, recipient: ids[2], limit: 10)).isEmpty)
            #expect(try await queue.retryNow(id: ids[0], now: base + 40))
            #expect(try await queue.mails(MailQuery(state: .queued, limit: 1000)).contains { $0.id == ids[0] })
            // Claiming takes every due mail of a shared database: only SQLite's own file is this test's alone.
            if kind == .sqlite {
                let claimed = try await queue.claimDue(now: base + 40, limit: 1000, leaseUntil: base + 1000)
                #expect(Set(claimed.map(\.id)) == [ids[0], ids[2]] && claimed.allSatisfy { $0.message.hasPrefix("Subject") })
                // Held by a sender until base + 1000: neither retried nor discarded under it.
                #expect(try await !queue.retryNow(id: ids[2], now: base + 50))
                #expect(try await !queue.discard(id: ids[2], now: base + 50))
            }
            #expect(try await queue.discard(id: ids[1], now: base + 50))
            #expect(try await queue.state(id: ids[1]) == nil)
            #expect(try await !queue.discard(id: "absent-\(ids[1])", now: base + 50))
        }
    }
}
