import Foundation
import Logging
import Testing

@testable import LinkDomain
@testable import LinkDomainCore
@testable import LinkDomainStorage

/// The storage behaviour every store must have, run against SQLite always and against PostgreSQL
/// when `TEST_POSTGRES_URL` names a database (scripts/test starts one).
enum StoreKind: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case sqlite
    case postgres

    var testDescription: String { rawValue }

    static var available: [StoreKind] {
        ProcessInfo.processInfo.environment["TEST_POSTGRES_URL"] == nil ? [.sqlite] : [.sqlite, .postgres]
    }

    func withStore<T: Sendable>(_ body: @Sendable (any AuthStore & LinkStore) async throws -> T) async throws -> T {
        var configuration = LinkDomainConfiguration(publicBaseURL: "https://links.example.com")
        switch self {
        case .sqlite:
            configuration.storage = .sqlite(path: FileManager.default.temporaryDirectory.appendingPathComponent("store-\(UUID().uuidString).sqlite").path)
        case .postgres:
            configuration.storage = .postgres(url: ProcessInfo.processInfo.environment["TEST_POSTGRES_URL"] ?? "")
        }
        return try await OpenedStore.open(configuration, logger: Logger(label: "test")).withRunning(body)
    }
}

@Suite("Storage: the same behaviour on every store")
struct StoreSuiteTests {
    /// Identifiers unique to one test run, so tests can share a PostgreSQL database.
    static func unique(_ prefix: String) -> String { "\(prefix)-\(UUID().uuidString.prefix(8))" }

    static func user(_ tenant: String, _ id: String, email: String?) -> UserRecord {
        UserRecord(tenantID: tenant, localID: id, email: email, passwordHash: "scrypt$x", createdAt: 1, validSince: 0)
    }

    @Test("accounts: insert, find by id, email and the start of an address, update, unique email per tenant, delete", arguments: StoreKind.available)
    func accounts(kind: StoreKind) async throws {
        try await kind.withStore { store in
            let tenant = Self.unique("t")
            var ada = Self.user(tenant, "u1", email: "ada@example.com")
            ada.languageCode = "pt-PT"
            try await store.insertUser(ada)
            #expect(try await store.user(tenantID: tenant, localID: "u1") == ada)
            #expect(try await store.user(tenantID: tenant, email: "ada@example.com") == ada)
            #expect(try await store.user(tenantID: tenant + "x", email: "ada@example.com") == nil)
            await #expect(throws: StoreError.emailExists) { try await store.insertUser(Self.user(tenant, "u2", email: "ada@example.com")) }
            try await store.insertUser(Self.user(tenant, "u2", email: nil))
            try await store.insertUser(Self.user(tenant, "u3", email: nil))  // many accounts without email
            let readAda = ada
            ada.emailVerified = true
            ada.displayName = "Ada"
            ada.lastLoginAt = 99
            ada.languageCode = "ar"
            try await store.updateUser(ada, readAs: readAda)
            ada.version += 1
            #expect(try await store.user(tenantID: tenant, localID: "u1") == ada)
            let readBob = Self.user(tenant, "u2", email: nil)
            var bob = readBob
            bob.email = "ada@example.com"
            await #expect(throws: StoreError.emailExists) { try await store.updateUser(bob, readAs: readBob) }
            bob.email = "bob@example.com"
            try await store.updateUser(bob, readAs: readBob)
            // By the start of an address, in address order; a prefix of nobody's finds nobody.
            try await store.insertUser(Self.user(tenant, "u4", email: "adam@example.com"))
            #expect(try await store.users(tenantID: tenant, emailPrefix: "ad", limit: 10).map(\.localID) == ["u1", "u4"])
            #expect(try await store.users(tenantID: tenant, emailPrefix: "ada@", limit: 10).map(\.localID) == ["u1"])
            #expect(try await store.users(tenantID: tenant, emailPrefix: "ad", limit: 1).map(\.localID) == ["u1"])
            #expect(try await store.users(tenantID: tenant, emailPrefix: "zz", limit: 10).isEmpty)
            try await store.insertRefreshToken(RefreshTokenRecord(token: Self.unique("r"), tenantID: tenant, localID: "u1", createdAt: 5))
            #expect(try await store.deleteUser(tenantID: tenant, localID: "u1"))
            #expect(try await store.deleteUser(tenantID: tenant, localID: "u1") == false)
            #expect(try await store.user(tenantID: tenant, localID: "u1") == nil)
        }
    }

    @Test(
        "a write on a stale read is refused, changes only what it changed, and sign-ins do not conflict with each other",
        arguments: StoreKind.available)
    func conditionalWrites(kind: StoreKind) async throws {
        try await kind.withStore { store in
            let tenant = Self.unique("t")
            let read = Self.user(tenant, "u1", email: "ada@example.com")
            try await store.insertUser(read)
            // Two sign-ins that read the same account both record theirs.
            try await store.recordSignIn(of: read, lastLoginAt: 10, lastRefreshAt: 10)
            try await store.recordSignIn(of: read, lastLoginAt: nil, lastRefreshAt: 20)
            // A reset that read it too wins, and the account's version moves on.
            var reset = read
            reset.passwordHash = "new"
            reset.validSince = 5
            try await store.updateUser(reset, readAs: read)
            let afterReset = try #require(try await store.user(tenantID: tenant, localID: "u1"))
            #expect(afterReset.passwordHash == "new" && afterReset.version == read.version + 1)
            #expect(afterReset.lastLoginAt == 10 && afterReset.lastRefreshAt == 20, "the reset wrote only what it changed")
            // Whatever read the account before the reset can no longer write: not a sign-in, not a change.
            await #expect(throws: StoreError.conflict) { try await store.recordSignIn(of: read, lastLoginAt: 30, lastRefreshAt: 30) }
            var stale = read
            stale.displayName = "Mallory"
            await #expect(throws: StoreError.conflict) { try await store.updateUser(stale, readAs: read) }
            #expect(try await store.user(tenantID: tenant, localID: "u1") == afterReset)
            // An account deleted meanwhile is a conflict too: the next read says it is gone.
            #expect(try await store.deleteUser(tenantID: tenant, localID: "u1"))
            await #expect(throws: StoreError.conflict) { try await store.updateUser(stale, readAs: afterReset) }
        }
    }

    @Test("codes: stored, listed, spent once, expired codes never spent", arguments: StoreKind.available)
    func codes(kind: StoreKind) async throws {
        try await kind.withStore { store in
            let project = Self.unique("p")
            func code(_ name: String, expiresAt: Int64) -> OobCodeRecord {
                OobCodeRecord(
                    code: "\(project)-\(name)", projectID: project, tenantID: "", requestType: .passwordReset, email: "a@example.com",
                    newEmail: nil, localID: "u1", link: "https://links.example.com/x", createdAt: 1, expiresAt: expiresAt)
            }
            try await store.insertCode(code("live", expiresAt: 1000))
            try await store.insertCode(code("old", expiresAt: 10))
            #expect(try await store.codes(projectID: project).map(\.code) == ["\(project)-live", "\(project)-old"])
            #expect(try await store.code("\(project)-live") == code("live", expiresAt: 1000))
            // Whether an app asked for a code is kept, and unknown for codes stored without it.
            for askedByApp in [true, false] {
                var asked = code("asked-\(askedByApp)", expiresAt: 1000)
                asked.askedByApp = askedByApp
                try await store.insertCode(asked)
                #expect(try await store.code(asked.code)?.askedByApp == askedByApp)
            }
            #expect(try await store.code("\(project)-live")?.askedByApp == nil)
            func spend(_ name: String) async throws -> AuthCommit {
                try await store.commit(AuthWrites(spending: .init(code: "\(project)-\(name)", now: 500)))
            }
            #expect(try await spend("old") == .codeExpired)
            #expect(try await store.code("\(project)-old") != nil)
            #expect(try await spend("live") == .committed)
            #expect(try await store.code("\(project)-live") == nil)
            #expect(try await spend("live") == .codeInvalid)
            #expect(try await spend("never") == .codeInvalid)
        }
    }

    @Test(
        "one action, one transaction: a code is spent with its effect, its new code and its mail, or nothing is written",
        arguments: StoreKind.available)
    func commits(kind: StoreKind) async throws {
        try await kind.withStore { store in
            let tenant = Self.unique("t")
            let read = Self.user(tenant, "u1", email: "\(tenant)@example.com")
            try await store.insertUser(read)
            func code(_ name: String, expiresAt: Int64 = 1000) -> OobCodeRecord {
                OobCodeRecord(
                    code: "\(tenant)-\(name)", projectID: "p", tenantID: tenant, requestType: .verifyAndChangeEmail, email: "new@example.com",
                    newEmail: read.email, localID: "u1", link: "l", createdAt: 1, expiresAt: expiresAt)
            }
            try await store.insertCode(code("change"))
            try await store.insertCode(code("old", expiresAt: 10))
            var changed = read
            changed.email = "\(tenant)-new@example.com"
            let mail = QueuedMail(
                id: Self.unique("m"), sender: "s@example.com", recipient: "\(tenant)@example.com", message: "m", kind: "recover-email",
                queuedAt: 1)
            let stale = AuthWrites.Update(
                changed,
                readAs: {
                    var older = read; older.version -= 1; return older
                }())
            // A lost race after the code was spent in the same transaction: nothing is written, the code is still live.
            await #expect(throws: StoreError.conflict) {
                try await store.commit(
                    AuthWrites(
                        spending: .init(code: "\(tenant)-change", now: 5), updatedUsers: [stale],
                        insertedCodes: [code("recover")], mails: [mail]))
            }
            #expect(try await store.code("\(tenant)-change") != nil)
            #expect(try await store.code("\(tenant)-recover") == nil)
            #expect(try await store.user(tenantID: tenant, localID: "u1")?.email == read.email)
            // An expired or unknown code: nothing is written either.
            #expect(try await store.commit(AuthWrites(spending: .init(code: "\(tenant)-old", now: 500), insertedCodes: [code("x")])) == .codeExpired)
            #expect(try await store.commit(AuthWrites(spending: .init(code: "\(tenant)-never", now: 5), insertedCodes: [code("y")])) == .codeInvalid)
            #expect(try await store.code("\(tenant)-x") == nil)
            #expect(try await store.code("\(tenant)-y") == nil)
            // Then all of it.
            #expect(
                try await store.commit(
                    AuthWrites(
                        spending: .init(code: "\(tenant)-change", now: 5),
                        updatedUsers: [AuthWrites.Update(changed, readAs: read)],
                        insertedCodes: [code("recover")], mails: [mail])) == .committed)
            #expect(try await store.code("\(tenant)-change") == nil)
            #expect(try await store.code("\(tenant)-recover") != nil)
            #expect(try await store.user(tenantID: tenant, localID: "u1")?.email == changed.email)
            #expect(try await store.commit(AuthWrites(spending: .init(code: "\(tenant)-change", now: 5))) == .codeInvalid, "spent once")
        }
    }

    @Test("50 concurrent attempts on one code: exactly one spends it", arguments: StoreKind.available)
    func concurrentRedeem(kind: StoreKind) async throws {
        try await kind.withStore { store in
            let name = Self.unique("c")
            try await store.insertCode(
                OobCodeRecord(
                    code: name, projectID: "p", tenantID: "", requestType: .emailSignIn, email: "a@example.com",
                    newEmail: nil, localID: nil, link: "l", createdAt: 1, expiresAt: 1000))
            let results = try await withThrowingTaskGroup(of: AuthCommit.self) { group in
                for _ in 0..<50 { group.addTask { try await store.commit(AuthWrites(spending: .init(code: name, now: 2))) } }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(results.filter { $0 == .committed }.count == 1)
            #expect(results.filter { $0 == .codeInvalid }.count == 49)
        }
    }

    @Test("refresh tokens and the signing key (one key, however many ask at once)", arguments: StoreKind.available)
    func tokensAndKey(kind: StoreKind) async throws {
        try await kind.withStore { store in
            let token = RefreshTokenRecord(token: Self.unique("r"), tenantID: "", localID: "u", createdAt: 7)
            try await store.insertRefreshToken(token)
            #expect(try await store.refreshToken(token.token) == token)
            #expect(try await store.refreshToken("nope") == nil)
            let keys = try await withThrowingTaskGroup(of: String.self) { group in
                for index in 0..<10 { group.addTask { try await store.signingKey(.idTokens) { "key-\(index)" } } }
                return try await group.reduce(into: Set<String>()) { $0.insert($1) }
            }
            #expect(keys.count == 1)
            #expect(try await store.signingKey(.idTokens) { "another" } == keys.first)
            #expect(try await store.signingKey(.sessionCookies) { "cookie-key" } == "cookie-key", "each key its own row")
            #expect(try await store.signingKey(.idTokens) { "another" } == keys.first)
        }
    }

    @Test("short links: stored once, never overwritten; events counted per platform and day", arguments: StoreKind.available)
    func links(kind: StoreKind) async throws {
        try await kind.withStore { store in
            let suffix = Self.unique("s")
            let link = ShortLinkRecord(suffix: suffix, longLinkQuery: "link=https%3A%2F%2Fexample.com%2F", createdAt: 3, origin: .api)
            try await store.insertShortLink(link)
            await #expect(throws: StoreError.duplicate) {
                try await store.insertShortLink(ShortLinkRecord(suffix: suffix, longLinkQuery: "link=other", createdAt: 4, origin: .api))
            }
            #expect(try await store.shortLink(suffix: suffix) == link)
            try await store.recordEvents([
                LinkEventTally(suffix: suffix, day: 100, platform: .iOS, event: .click, count: 1),
                LinkEventTally(suffix: suffix, day: 101, platform: .iOS, event: .click, count: 1),
                LinkEventTally(suffix: suffix, day: 101, platform: .iOS, event: .redirectToStore, count: 3),
                LinkEventTally(suffix: suffix, day: 90, platform: .android, event: .click, count: 1),
            ])
            // A second batch adds to the counts already stored.
            try await store.recordEvents([
                LinkEventTally(suffix: suffix, day: 101, platform: .desktop, event: .click, count: 1),
                LinkEventTally(suffix: suffix, day: 101, platform: .iOS, event: .redirectToStore, count: 2),
            ])
            try await store.recordEvents([])
            let counts = try await store.eventCounts(suffix: suffix, fromDay: 100)
            #expect(
                counts == [
                    LinkEventCount(platform: .desktop, event: .click, count: 1), LinkEventCount(platform: .iOS, event: .click, count: 2),
                    LinkEventCount(platform: .iOS, event: .redirectToStore, count: 5),
                ])
        }
    }
}
