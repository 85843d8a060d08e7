import Foundation
import Testing

@testable import LinkDomain
@testable import LinkDomainCore
@testable import LinkDomainStorage

@Suite("The mail queue on every store: stored, claimed once, retried, finished", .serialized)
// Serialized: on a shared PostgreSQL database one test's claim (any mail due by then) would take
// the other's mails.
struct MailQueueStoreTests {
    static func mail(_ id: String, at: Int64) -> QueuedMail {
        QueuedMail(id: id, sender: "noreply@example.com", recipient: "\(id)@example.com", message: "Subject: x\r\n\r\nbody", kind: "sign-in", queuedAt: at)
    }

    /// Marks sent every mail due by `now`: what tests before this one left claimable.
    static func finishDue(_ queue: any MailQueueStore, now: Int64) async throws {
        while case let due = try await queue.claimDue(now: now, limit: 1000, leaseUntil: now + 1), !due.isEmpty {
            for mail in due { try await queue.markSent(id: mail.id, now: now, note: nil) }
        }
    }

    @Test("a claim takes due mails once until its lease ends; outcomes are recorded and the message dropped", arguments: StoreKind.available)
    func lifecycle(kind: StoreKind) async throws {
        try await kind.withStore { store in
            let queue = try #require(store as? any MailQueueStore)
            // Far in the future, so mails other tests left in a shared database are all due before these.
            let base = Int64(4_000_000_000_000) + Int64.random(in: 0..<1_000_000_000)
            let ids = (0..<3).map { StoreSuiteTests.unique("mail-\($0)") }
            for (offset, id) in ids.enumerated() { try await queue.enqueue(Self.mail(id, at: base + Int64(offset))) }
            let first = try await queue.claimDue(now: base + 10, limit: 1000, leaseUntil: base + 1000).filter { ids.contains($0.id) }
            #expect(first.map(\.id) == ids && first.allSatisfy { $0.attempts == 1 && $0.message.hasPrefix("Subject") })
            // Claimed: nobody else gets them before the lease ends, however often they ask.
            #expect(try await queue.claimDue(now: base + 500, limit: 1000, leaseUntil: base + 2000).filter { ids.contains($0.id) }.isEmpty)

            try await queue.markSent(id: ids[0], now: base + 20, note: nil)
            try await queue.markFailed(id: ids[1], reason: "550 5.1.1 gone", now: base + 20)
            try await queue.reschedule(id: ids[2], at: base + 3000, reason: "connection refused")
            #expect(try await queue.state(id: ids[0])?.state == .sent)
            let failed = try await queue.state(id: ids[1])
            #expect(failed?.state == .failed && failed?.lastError == "550 5.1.1 gone")
            #expect(try await queue.state(id: ids[2])?.lastError == "connection refused")
            #expect(try await queue.claimDue(now: base + 2999, limit: 1000, leaseUntil: base + 4000).filter { ids.contains($0.id) }.isEmpty)
            let retried = try await queue.claimDue(now: base + 3000, limit: 1000, leaseUntil: base + 4000).filter { ids.contains($0.id) }
            #expect(retried.map(\.id) == [ids[2]] && retried.first?.attempts == 2)
            // Once the lease runs out with no outcome (the sender died), the mail is due again.
            #expect(try await queue.claimDue(now: base + 4000, limit: 1000, leaseUntil: base + 5000).filter { ids.contains($0.id) }.map(\.id) == [ids[2]])
            let summary = try await queue.summary()
            #expect(summary.sent >= 1 && summary.failed >= 1 && summary.queued >= 1)
        }
    }

    @Test("SQLite: a restart frees the claims of the run before it, so a crash delays nothing")
    func sqliteRestart() async throws {
        try await StoreKind.sqlite.withStore { store in
            let queue = try #require(store as? any MailQueueStore)
            try await queue.enqueue(Self.mail("held", at: 0))
            #expect(try await queue.claimDue(now: 1, limit: 10, leaseUntil: 1_000_000).count == 1)
            #expect(try await queue.claimDue(now: 2, limit: 10, leaseUntil: 1_000_000).isEmpty)
            try await queue.releaseAbandonedClaims()
            #expect(try await queue.claimDue(now: 3, limit: 10, leaseUntil: 1_000_000).map(\.id) == ["held"])
        }
    }

    @Test("50 concurrent claims of 20 mails: each mail in exactly one claim", arguments: StoreKind.available)
    func concurrentClaims(kind: StoreKind) async throws {
        try await kind.withStore { store in
            let queue = try #require(store as? any MailQueueStore)
            let base = Int64(5_000_000_000_000) + Int64.random(in: 0..<1_000_000_000)
            let ids = (0..<20).map { StoreSuiteTests.unique("race-\($0)") }
            // Mails earlier runs left due in a reused database would fill some of the 150 places.
            try await Self.finishDue(queue, now: base)
            for id in ids { try await queue.enqueue(Self.mail(id, at: base)) }
            let claimed = try await withThrowingTaskGroup(of: [String].self) { group in
                for _ in 0..<50 {
                    group.addTask { try await queue.claimDue(now: base, limit: 3, leaseUntil: base + 60_000).map(\.id).filter { ids.contains($0) } }
                }
                return try await group.reduce(into: [String]()) { $0 += $1 }
            }
            #expect(claimed.sorted() == ids.sorted())
            for id in ids { try await queue.markSent(id: id, now: base, note: nil) }
        }
    }
}
