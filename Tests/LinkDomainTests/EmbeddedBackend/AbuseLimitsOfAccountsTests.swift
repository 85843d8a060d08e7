import Foundation
import Synchronization
import Testing

@testable import LinkDomain
@testable import LinkDomainCore
@testable import LinkDomainStorage

@Suite("What accounts and imports may cost and contain")
struct AbuseLimitsOfAccountsTests {
    @Test("scrypt parameters: RFC 7914's bounds, and at most four times this backend's own work per check")
    func scryptParameters() {
        #expect(PasswordFormats.scryptRefusal(cost: 1 << 14, blockSize: 8, parallelization: 1) == nil)
        #expect(PasswordFormats.scryptRefusal(cost: 1 << 16, blockSize: 8, parallelization: 1) == nil, "the costliest allowed: 2^19 mixes, 64 MiB")
        #expect(PasswordFormats.scryptRefusal(cost: 1 << 16, blockSize: 8, parallelization: 16) != nil, "4.8 s a check")
        #expect(PasswordFormats.scryptRefusal(cost: 1 << 19, blockSize: 1, parallelization: 1) != nil, "N must be below 2^(16 r)")
        #expect(PasswordFormats.scryptRefusal(cost: 1 << 15, blockSize: 1, parallelization: 1) == nil)
        #expect(PasswordFormats.scryptRefusal(cost: 1000, blockSize: 8, parallelization: 1) != nil, "not a power of two")
        #expect(PasswordFormats.scryptRefusal(cost: 1, blockSize: 8, parallelization: 1) != nil)
        #expect(PasswordFormats.scryptRefusal(cost: Int.max / 2 + 1, blockSize: 64, parallelization: 16) != nil, "no overflow")
    }

    @Test("bcrypt: the cost a hash names, capped at 12")
    func bcryptCost() {
        #expect(Bcrypt.cost(of: "$2b$14$" + String(repeating: "a", count: 53)) == 14)
        #expect(Bcrypt.cost(of: "not a hash") == nil)
        #expect(Bcrypt.maximumCost == 12)
        // A stored hash over the cap is never checked (it would take seconds): it matches nothing.
        #expect(!Bcrypt.verify("x", against: "$2b$14$" + String(repeating: "a", count: 53)))
    }

    @Test("waiting password checks are taken one party at a time: a client with many waits behind everyone else")
    func turns() {
        var turns = PasswordHashingPool.Turns<String>()
        #expect(turns.admit("attacker", threads: 1, maximumQueued: 10, continuation: "a0") == true, "a free thread: at once")
        for index in 1...5 { #expect(turns.admit("attacker", threads: 1, maximumQueued: 10, continuation: "a\(index)") == false) }
        #expect(turns.admit("user", threads: 1, maximumQueued: 10, continuation: "u1") == false)
        #expect(turns.admit("other", threads: 1, maximumQueued: 10, continuation: "o1") == false)
        var served: [String] = []
        while let next = turns.finished() { served.append(next) }
        #expect(served == ["a1", "u1", "o1", "a2", "a3", "a4", "a5"], "the user waited behind one of the attacker's checks, not five")
        #expect(turns.running == 0 && turns.waiting == 0)
        for index in 0..<3 { _ = turns.admit("x", threads: 1, maximumQueued: 2, continuation: "x\(index)") }
        #expect(turns.admit("y", threads: 1, maximumQueued: 2, continuation: "y") == nil, "past the queue's limit: refused at once")
    }

    @Test("an unknown address's check takes a turn on the hashing threads as a known one's does (a decoy hash), so timing cannot tell them apart")
    func unknownAddressesHash() async throws {
        let pool = PasswordHashingPool(threads: 1, maximumQueued: 0)
        let service = PasswordService(hasher: PasswordHasher(rounds: 2, blockSize: 1), pool: pool)
        let stored = try await service.hash("right")
        #expect(try await service.verify("right", against: stored))
        #expect(try await !service.verify("right", against: nil), "no account: false, after the decoy's work")
        // The only thread busy and no room to wait: every check, with or without an account, is
        // refused, because each asks for a turn on the threads.
        let gate = Gate()
        let occupant = Task {
            try await pool.run {
                gate.occupied.withLock { $0 = true }
                while !gate.released.withLock({ $0 }) { usleep(1000) }
            }
        }
        while !gate.occupied.withLock({ $0 }) { try await Task.sleep(for: .milliseconds(1)) }
        for stored in [stored, nil] {
            await #expect(throws: IdentityToolkitError.tooManyAttempts) { try await service.verify("right", against: stored) }
        }
        gate.released.withLock { $0 = true }
        try await occupant.value
    }

    @Test("addresses: ordinary ones of every script pass; link-shaped, spaced and hidden text does not")
    func addresses() throws {
        for address in ["ada@example.com", "First.Last+tag@Example.com", "o'brien@example.co.uk", "jöhn@exämple.de", "用户@例子.中国"] {
            #expect((try? AccountAttributes.email(address)) != nil, "\(address)")
        }
        #expect(try AccountAttributes.email("  Ada@Example.COM ") == "ada@example.com")
        for address in [
            "https://evil.example/secure-login?x=@attacker.test", "a:b@example.com", "a\u{2800}b@example.com", "a\u{202E}b@example.com",
            "a\u{200B}b@example.com", "a\u{3164}b@example.com", ".a@example.com", "a.@example.com", "a..b@example.com",
            "a@example", "a@-example.com", "a@exa_mple.com", "a b@example.com", "a@b@example.com", "@example.com",
        ] {
            #expect((try? AccountAttributes.email(address)) == nil, "\(address.unicodeScalars.map { String($0.value, radix: 16) })")
        }
    }

    @Test("budgets count mailboxes: sub-addresses and case fold into one")
    func mailboxes() {
        #expect(MailOutbox.mailbox("Victim+1@Example.com") == "victim@example.com")
        #expect(MailOutbox.mailbox("victim+a+b@example.com") == "victim@example.com")
        #expect(MailOutbox.mailbox("victim@example.com") == "victim@example.com")
        #expect(MailOutbox.mailbox("+only@example.com") == "+only@example.com")
    }

    @Test("revoking at a time revokes that whole second")
    func revocation() {
        var user = UserRecord(tenantID: "", localID: "u", email: nil, createdAt: 0, validSince: 0)
        user.revokeSessions(at: 10_300)
        #expect(user.validSince == 11, "a token of second 10 (iat 10) is refused")
        user.revokeSessions(at: 12_000)
        #expect(user.validSince == 12)
    }
}

/// A hashing thread held until the test lets it go.
private final class Gate: Sendable {
    let occupied = Mutex(false)
    let released = Mutex(false)
}
