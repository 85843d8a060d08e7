import HTTPTypes
import LinkDomainCore
import LinkDomainStorage

/// Who may use the console (`docs/design/console.md`): everyone in development (loopback, like the
/// Auth emulator's UI); in a deployment nobody unless `console.users` or `backend.adminKeys` are
/// configured, and then whoever signs in with one of them.
struct ConsoleAccess: Sendable {
    enum Policy: Sendable, Equatable {
        /// Development: no sign-in; the actor is `development`.
        case open
        /// A deployment with no one to sign in: the console answers 404, as if absent.
        case closed
        case signIn
    }

    enum SignIn: Sendable, Equatable {
        case signedIn(ConsoleSession, credentialDigest: String)
        case refused
        /// Too many attempts from the address: the seconds to wait.
        case tooMany(Int)
    }

    let policy: Policy
    /// Password hashes by name.
    let users: [String: String]
    let adminKeys: [String]
    let seal: ConsoleSessionSeal
    /// Sign-in attempts per client address (IPv6 by /64): 10 a minute (all at once, if need be), on
    /// every replica together.
    let signIns: Budget
    /// Sign-in attempts in all, whoever makes them: each costs a 32 MiB scrypt, and the threads
    /// that run it also check app users' passwords.
    let allSignIns = RateLimiter(perMinute: ConsoleAccess.signInsPerMinute, burst: 20)
    static let signInsPerMinute = 60
    let pool: PasswordHashingPool
    /// Each actor's sign-outs, which every session is sealed over (nil: none kept, as in the open console).
    let signOuts: (any ConsoleSignOutStore)?

    init(
        configuration: LinkDomainConfiguration, signer: FormToken, signOuts: (any ConsoleSignOutStore)?, budgets: (any BudgetStore)? = nil,
        clock: any WallClock = SystemClock(), pool: PasswordHashingPool = .shared
    ) {
        signIns = Budget(name: "console-sign-in", limit: 10, windowSeconds: 60, shared: budgets, clock: clock)
        users = Dictionary(configuration.console.users.map { ($0.name, $0.passwordHash) }, uniquingKeysWith: { first, _ in first })
        adminKeys = configuration.backend.adminKeys
        policy = configuration.mode == .development ? .open : (users.isEmpty && adminKeys.isEmpty ? .closed : .signIn)
        seal = ConsoleSessionSeal(signer: signer, idleSeconds: Int64(configuration.console.idleMinutes) * 60)
        self.pool = pool
        self.signOuts = signOuts
    }

    /// The actor an admin key signs in as: which key (a digest's first characters), never the key.
    static func adminActor(_ key: String) -> String {
        "admin-key-" + KeyDigest.hex(key, bytes: 4)
    }

    /// The digest of `actor`'s credential; nil when the user or key is gone.
    func credentialDigest(actor: String) -> String? {
        if let hash = users[actor] { return ConsoleSessionSeal.digest(hash) }
        return adminKeys.first { Self.adminActor($0) == actor }.map(ConsoleSessionSeal.digest)
    }

    /// What a session of `actor` is sealed over: its credential's digest and its sign-outs so far;
    /// nil when the user or key is gone.
    func sealedDigest(actor: String) async throws(StoreError) -> String? {
        guard let credential = credentialDigest(actor: actor) else { return nil }
        return "\(credential).\(try await signOuts?.consoleSignOuts(actor: actor) ?? 0)"
    }

    /// The request's session: development's in the open console, else the cookie's, if valid,
    /// with the digest it was verified against (its renewal is sealed over that same digest, never
    /// a later read: a sign-out between the two must not renew the session past it). Throws when
    /// the database that keeps sign-outs cannot say.
    func session(cookie: String?, now: Int64) async throws(StoreError) -> (session: ConsoleSession, digest: String)? {
        switch policy {
        case .open: return (.development, "")
        case .closed: return nil
        case .signIn:
            guard let cookie else { return nil }
            var verified: String?
            do {
                let session = try await seal.session(cookie: cookie, now: now) { actor in
                    verified = try await sealedDigest(actor: actor)
                    return verified
                }
                guard let session, let verified else { return nil }
                return (session, verified)
            } catch let error as StoreError {
                throw error
            } catch {
                throw .unavailable
            }
        }
    }

    /// Ends every session of `actor` (the sign-out button): sessions sealed before it no longer open.
    func signOut(_ session: ConsoleSession) async throws(StoreError) {
        try await signOuts?.recordConsoleSignOut(actor: session.actor)
    }

    /// Checks a name and password (or, with no name, an admin key). The password is hashed on the
    /// hashing threads, and an unknown name is checked against a decoy, so that the answer takes
    /// the same time whether or not the name exists; every refusal says the same.
    ///
    /// Attempts are counted per client (on every replica together) and in all; past either, or
    /// when the hashing threads already have too many checks waiting, the answer is to wait.
    func signIn(name: String, password: String, client: String, now: Int64) async throws(StoreError) -> SignIn {
        if let wait = await signIns.take(client) { return .tooMany(wait) }
        guard name.utf8.count <= 64, password.utf8.count <= 1024 else { return .refused }
        if name.isEmpty {
            // As every other key check: how much of a key matched does not show in the time taken.
            guard !password.isEmpty, let key = adminKeys.first(where: { ConstantTime.equal($0.utf8, password.utf8) }) else { return .refused }
            let actor = Self.adminActor(key)
            return .signedIn(ConsoleSession(actor: actor, signedInAt: now), credentialDigest: try await sealedDigest(actor: actor) ?? "")
        }
        // Only the scrypt path counts against everyone's budget: an admin key costs no hash, and
        // strangers using up the budget must not lock out the operator who holds one.
        if let wait = allSignIns.take("") { return .tooMany(wait) }
        let stored = users[name]
        let hash = stored.flatMap(ScryptPasswordHash.init) ?? Self.decoy
        let matches: Bool
        do {
            matches = try await pool.run(for: client) { hash.matches(password) }
        } catch {
            return .tooMany(1)
        }
        guard matches, stored != nil, let digest = try await sealedDigest(actor: name) else { return .refused }
        return .signedIn(ConsoleSession(actor: name, signedInAt: now), credentialDigest: digest)
    }

    /// What an unknown name's password is checked against: the same cost as a real hash.
    static let decoy = ScryptPasswordHash(salt: Array(repeating: 7, count: 16), key: Array(repeating: 0, count: ScryptPasswordHash.keyLength))

    /// The `Set-Cookie` value that keeps `session` for the idle time.
    func cookie(_ session: ConsoleSession, credentialDigest: String, now: Int64) -> String {
        "\(ConsoleSessionSeal.cookieName)=\(seal.cookie(session, credentialDigest: credentialDigest, now: now)); Path=/; Max-Age=\(seal.idleSeconds); HttpOnly; Secure; SameSite=Strict"
    }

    /// The `Set-Cookie` value that ends the session in this browser.
    static let signedOutCookie = "\(ConsoleSessionSeal.cookieName)=; Path=/; Max-Age=0; HttpOnly; Secure; SameSite=Strict"
}

/// `linkdomain console hash-password`: what `console.users[i].passwordHash` holds.
public enum ConsolePasswords {
    public static let minimumLength = 12

    public enum Problem: Error, CustomStringConvertible {
        case tooShort

        public var description: String { "the password must have at least \(ConsolePasswords.minimumLength) characters" }
    }

    public static func hash(_ password: String) throws -> String {
        guard password.count >= minimumLength else { throw Problem.tooShort }
        return try ScryptPasswordHash.make(password).text
    }
}
