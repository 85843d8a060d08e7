import Foundation
import LinkDomainCore
import Logging
import PostgresNIO
import ServiceLifecycle
import Synchronization

/// ``AuthStore`` and ``LinkStore`` on PostgreSQL, so several LinkDomain replicas share accounts,
/// codes, short links and statistics.
///
/// The connection pool is a ServiceLifecycle service: it must be running (``run()``) before any
/// call. ``migrate()`` brings the schema up to date under an advisory lock, so replicas starting
/// together do not race.
public final class PostgresStore: AuthStore, LinkStore, Service {
    package let client: PostgresClient
    package let logger: Logger
    /// What the probe last found: while the database is away, every call fails at once instead of
    /// waiting for a connection that will not come.
    public let health = DependencyHealth()
    /// How long one call may take before it is given up with ``StoreError/unavailable``.
    package let deadline: Duration
    /// Budget takes so far: every thousandth sweeps ended windows (``BudgetStore``).
    package let budgetTakes = Atomic<Int>(0)

    /// `url`: `postgres://user[:password]@host[:port]/database` (TLS off on loopback, else required).
    public init(url: String, deadline: Duration = .seconds(2), logger: Logger) throws(StoreError) {
        guard let components = URLComponents(string: url), ["postgres", "postgresql"].contains(components.scheme ?? ""),
            let host = components.host, let user = components.user
        else { throw .database("storage.postgresURL must look like postgres://user:password@host:5432/database") }
        let database = components.path.split(separator: "/").first.map(String.init)
        let loopback = ["127.0.0.1", "localhost", "::1"].contains(host)
        var configuration = PostgresClient.Configuration(
            host: host, port: components.port ?? 5432, username: user, password: components.password, database: database,
            tls: loopback ? .disable : .require(.makeClientConfiguration()))
        // A database that is away must not hold a request for the default ten seconds.
        configuration.options.connectTimeout = deadline
        // The pool narrates every connection at info level, cancelled ones included: keep it to notices.
        var poolLogger = logger
        poolLogger.logLevel = max(logger.logLevel, .notice)
        client = PostgresClient(configuration: configuration, backgroundLogger: poolLogger)
        self.logger = logger
        self.deadline = deadline
    }

    public func ping() async throws(StoreError) {
        try await guarded(failFast: false) { try await client.query("SELECT 1", logger: logger) }
    }

    public func run() async throws {
        await client.run()
    }

    public func migrate() async throws(StoreError) {
        // No deadline: another replica may hold the migration lock for a while.
        try await guarded(bounded: false) {
            try await client.withTransaction(logger: logger) { connection in
                try await connection.query("SELECT pg_advisory_xact_lock(7355608)", logger: logger)
                try await connection.query("CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY)", logger: logger)
                var applied = 0
                for try await version in try await connection.query("SELECT COALESCE(MAX(version), 0) FROM schema_migrations", logger: logger)
                    .decode(Int.self)
                {
                    applied = version
                }
                for (index, statements) in Self.migrations.enumerated() where index + 1 > applied {
                    for statement in statements.split(separator: ";").map({ $0.trimmingCharacters(in: .whitespacesAndNewlines) })
                    where !statement.isEmpty {
                        try await connection.query(PostgresQuery(unsafeSQL: statement), logger: logger)
                    }
                    try await connection.query("INSERT INTO schema_migrations (version) VALUES (\(index + 1))", logger: logger)
                }
            }
        }
    }

    // MARK: Accounts

    public func insertUser(_ user: UserRecord) async throws(StoreError) {
        try await guarded { try await client.query(Self.insertion(of: user), logger: logger) }
    }

    package static func insertion(of user: UserRecord) -> PostgresQuery {
        """
        INSERT INTO users (tenant_id, local_id, email, email_verified, password_hash, password_updated_at, display_name, photo_url,
            disabled, email_link_sign_in, created_at, last_login_at, valid_since, phone_number, custom_attributes, last_refresh_at,
            provider_data, language_code)
        VALUES (\(user.tenantID), \(user.localID), \(user.email), \(user.emailVerified), \(user.passwordHash), \(user.passwordUpdatedAt),
            \(user.displayName), \(user.photoURL), \(user.disabled), \(user.emailLinkSignIn), \(user.createdAt), \(user.lastLoginAt),
            \(user.validSince), \(user.phoneNumber), \(user.customAttributes), \(user.lastRefreshAt), \(user.providerData), \(user.languageCode))
        """
    }

    public func deleteUser(tenantID: String, localID: String) async throws(StoreError) -> Bool {
        try await guarded {
            try await client.withTransaction(logger: logger) { connection in
                try await connection.query("DELETE FROM refresh_tokens WHERE tenant_id = \(tenantID) AND local_id = \(localID)", logger: logger)
                var deleted = false
                for try await _ in try await connection.query(
                    "DELETE FROM users WHERE tenant_id = \(tenantID) AND local_id = \(localID) RETURNING local_id", logger: logger)
                {
                    deleted = true
                }
                return deleted
            }
        }
    }

    public func user(tenantID: String, localID: String) async throws(StoreError) -> UserRecord? {
        try await users("SELECT * FROM users WHERE tenant_id = \(tenantID) AND local_id = \(localID)").first
    }

    public func user(tenantID: String, email: String) async throws(StoreError) -> UserRecord? {
        try await users("SELECT * FROM users WHERE tenant_id = \(tenantID) AND email = \(email)").first
    }

    public func user(tenantID: String, phoneNumber: String) async throws(StoreError) -> UserRecord? {
        try await users("SELECT * FROM users WHERE tenant_id = \(tenantID) AND phone_number = \(phoneNumber)").first
    }

    public func users(tenantID: String, providerDataContaining fragment: String) async throws(StoreError) -> [UserRecord] {
        try await users("SELECT * FROM users WHERE tenant_id = \(tenantID) AND strpos(provider_data, \(fragment)) > 0 LIMIT 100")
    }

    public func users(tenantID: String, emailPrefix prefix: String, limit: Int) async throws(StoreError) -> [UserRecord] {
        try await users("SELECT * FROM users WHERE tenant_id = \(tenantID) AND starts_with(email, \(prefix)) ORDER BY email LIMIT \(limit)")
    }

    public func users(tenantID: String, afterLocalID: String, limit: Int) async throws(StoreError) -> [UserRecord] {
        try await users("SELECT * FROM users WHERE tenant_id = \(tenantID) AND local_id > \(afterLocalID) ORDER BY local_id LIMIT \(limit)")
    }

    public func deleteAllUsers(tenantID: String) async throws(StoreError) {
        try await guarded {
            try await client.withTransaction(logger: logger) { connection in
                try await connection.query("DELETE FROM refresh_tokens WHERE tenant_id = \(tenantID)", logger: logger)
                try await connection.query("DELETE FROM users WHERE tenant_id = \(tenantID)", logger: logger)
            }
        }
    }

    private func users(_ query: PostgresQuery) async throws(StoreError) -> [UserRecord] {
        try await guarded {
            var result: [UserRecord] = []
            for try await row in try await client.query(query, logger: logger) {
                let columns = row.makeRandomAccess()
                result.append(
                    UserRecord(
                        tenantID: try columns["tenant_id"].decode(String.self), localID: try columns["local_id"].decode(String.self),
                        email: try columns["email"].decode(String?.self), emailVerified: try columns["email_verified"].decode(Bool.self),
                        passwordHash: try columns["password_hash"].decode(String?.self),
                        passwordUpdatedAt: try columns["password_updated_at"].decode(Int64?.self),
                        displayName: try columns["display_name"].decode(String?.self), photoURL: try columns["photo_url"].decode(String?.self),
                        disabled: try columns["disabled"].decode(Bool.self), emailLinkSignIn: try columns["email_link_sign_in"].decode(Bool.self),
                        createdAt: try columns["created_at"].decode(Int64.self), lastLoginAt: try columns["last_login_at"].decode(Int64?.self),
                        validSince: try columns["valid_since"].decode(Int64.self), phoneNumber: try columns["phone_number"].decode(String?.self),
                        customAttributes: try columns["custom_attributes"].decode(String?.self),
                        lastRefreshAt: try columns["last_refresh_at"].decode(Int64?.self), providerData: try columns["provider_data"].decode(String?.self),
                        languageCode: try columns["language_code"].decode(String?.self), version: try columns["version"].decode(Int64.self)))
            }
            return result
        }
    }

    // MARK: Codes

    public func insertCode(_ code: OobCodeRecord) async throws(StoreError) {
        try await guarded { try await client.query(Self.insertion(of: code), logger: logger) }
    }

    package static func insertion(of code: OobCodeRecord) -> PostgresQuery {
        """
        INSERT INTO oob_codes (code, project_id, tenant_id, request_type, email, new_email, local_id, link, created_at, expires_at, asked_by_app)
        VALUES (\(code.code), \(code.projectID), \(code.tenantID), \(code.requestType.rawValue), \(code.email), \(code.newEmail),
            \(code.localID), \(code.link), \(code.createdAt), \(code.expiresAt), \(code.askedByApp))
        """
    }

    public func code(_ code: String) async throws(StoreError) -> OobCodeRecord? {
        try await codes("SELECT * FROM oob_codes WHERE code = \(code)").first
    }

    public func codes(projectID: String) async throws(StoreError) -> [OobCodeRecord] {
        try await codes("SELECT * FROM oob_codes WHERE project_id = \(projectID) ORDER BY created_at, code")
    }

    private func codes(_ query: PostgresQuery) async throws(StoreError) -> [OobCodeRecord] {
        try await guarded {
            var result: [OobCodeRecord] = []
            for try await row in try await client.query(query, logger: logger) {
                let columns = row.makeRandomAccess()
                guard let type = OobRequestType(rawValue: try columns["request_type"].decode(String.self)) else { continue }
                result.append(
                    OobCodeRecord(
                        code: try columns["code"].decode(String.self), projectID: try columns["project_id"].decode(String.self),
                        tenantID: try columns["tenant_id"].decode(String.self), requestType: type, email: try columns["email"].decode(String.self),
                        newEmail: try columns["new_email"].decode(String?.self), localID: try columns["local_id"].decode(String?.self),
                        link: try columns["link"].decode(String.self), createdAt: try columns["created_at"].decode(Int64.self),
                        expiresAt: try columns["expires_at"].decode(Int64.self), askedByApp: try columns["asked_by_app"].decode(Bool?.self)))
            }
            return result
        }
    }

    // MARK: Tokens and keys

    public func insertRefreshToken(_ token: RefreshTokenRecord) async throws(StoreError) {
        try await guarded { try await client.query(Self.insertion(of: token), logger: logger) }
    }

    package static func insertion(of token: RefreshTokenRecord) -> PostgresQuery {
        """
        INSERT INTO refresh_tokens (token, tenant_id, local_id, created_at, provider, claims)
        VALUES (\(token.token), \(token.tenantID), \(token.localID), \(token.createdAt), \(token.provider), \(token.claims))
        """
    }

    public func refreshToken(_ token: String) async throws(StoreError) -> RefreshTokenRecord? {
        try await guarded {
            for try await (token, tenantID, localID, createdAt, provider, claims) in try await client.query(
                "SELECT token, tenant_id, local_id, created_at, provider, claims FROM refresh_tokens WHERE token = \(token)", logger: logger
            ).decode((String, String, String, Int64, String?, String?).self) {
                return RefreshTokenRecord(
                    token: token, tenantID: tenantID, localID: localID, createdAt: createdAt, provider: provider,
                    claims: claims)
            }
            return nil
        }
    }

    public func signingKey(_ id: SigningKeyID, orInsert make: @escaping @Sendable () throws -> String) async throws(StoreError) -> String {
        try await guarded {
            if let pem = try await storedSigningKey(id) { return pem }
            // Replicas starting together each propose a key; the first stored is everyone's.
            try await client.query(
                "INSERT INTO signing_keys (id, pem) VALUES (\(id.rawValue), \(try make())) ON CONFLICT (id) DO NOTHING",
                logger: logger)
            guard let pem = try await storedSigningKey(id) else { throw StoreError.database("the signing key vanished") }
            return pem
        }
    }

    private func storedSigningKey(_ id: SigningKeyID) async throws -> String? {
        for try await pem in try await client.query("SELECT pem FROM signing_keys WHERE id = \(id.rawValue)", logger: logger).decode(String.self) {
            return pem
        }
        return nil
    }
}
