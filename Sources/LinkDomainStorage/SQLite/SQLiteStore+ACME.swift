import GRDB
import LinkDomainCore

extension SQLiteStore: ACMEStore {
    public func acmeAccount(directoryURL: String) async throws(StoreError) -> ACMEAccountRecord? {
        try await read { db in
            try Row.fetchOne(db, sql: "SELECT keyPEM, accountURL FROM acmeAccounts WHERE directoryURL = ?", arguments: [directoryURL]).map {
                ACMEAccountRecord(directoryURL: directoryURL, keyPEM: $0[0], accountURL: $0[1])
            }
        }
    }

    public func saveACMEAccount(_ account: ACMEAccountRecord) async throws(StoreError) {
        try await write { db in
            try db.execute(
                sql: """
                    INSERT INTO acmeAccounts (directoryURL, keyPEM, accountURL) VALUES (?, ?, ?)
                    ON CONFLICT (directoryURL) DO UPDATE SET keyPEM = excluded.keyPEM, accountURL = excluded.accountURL
                    """, arguments: [account.directoryURL, account.keyPEM, account.accountURL])
        }
    }

    public func issuedCertificate(names: String) async throws(StoreError) -> IssuedCertificate? {
        try await read { db in
            try Row.fetchOne(db, sql: "SELECT chainPEM, keyPEM, notBefore, notAfter FROM issuedCertificates WHERE names = ?", arguments: [names]).map {
                IssuedCertificate(names: names, chainPEM: $0[0], keyPEM: $0[1], notBefore: $0[2], notAfter: $0[3])
            }
        }
    }

    public func saveIssuedCertificate(_ certificate: IssuedCertificate) async throws(StoreError) {
        try await write { db in
            try db.execute(
                sql: """
                    INSERT INTO issuedCertificates (names, chainPEM, keyPEM, notBefore, notAfter) VALUES (?, ?, ?, ?, ?)
                    ON CONFLICT (names) DO UPDATE SET chainPEM = excluded.chainPEM, keyPEM = excluded.keyPEM,
                        notBefore = excluded.notBefore, notAfter = excluded.notAfter
                    """,
                arguments: [certificate.names, certificate.chainPEM, certificate.keyPEM, certificate.notBefore, certificate.notAfter])
        }
    }

    public func takeACMELease(holder: String, now: Int64, until: Int64) async throws(StoreError) -> Bool {
        try await write { db in
            try db.execute(
                sql: """
                    INSERT INTO acmeLease (id, holder, until) VALUES (1, ?, ?)
                    ON CONFLICT (id) DO UPDATE SET holder = excluded.holder, until = excluded.until
                    WHERE acmeLease.until < ? OR acmeLease.holder = excluded.holder
                    """, arguments: [holder, until, now])
            return db.changesCount > 0
        }
    }

    public func releaseACMELease(holder: String) async throws(StoreError) {
        try await write { db in try db.execute(sql: "DELETE FROM acmeLease WHERE holder = ?", arguments: [holder]) }
    }

    public func saveACMEChallenge(_ challenge: ACMEChallengeRecord) async throws(StoreError) {
        try await write { db in
            try db.execute(
                sql: "INSERT OR REPLACE INTO acmeChallenges (token, name, keyAuthorization, expiresAt) VALUES (?, ?, ?, ?)",
                arguments: [challenge.token, challenge.name, challenge.keyAuthorization, challenge.expiresAt])
        }
    }

    public func acmeChallenge(token: String, now: Int64) async throws(StoreError) -> ACMEChallengeRecord? {
        try await challenge(where: "token = ?", token, now: now)
    }

    public func acmeChallenge(name: String, now: Int64) async throws(StoreError) -> ACMEChallengeRecord? {
        try await challenge(where: "name = ?", name, now: now)
    }

    private func challenge(where condition: String, _ value: String, now: Int64) async throws(StoreError) -> ACMEChallengeRecord? {
        try await read { db in
            try Row.fetchOne(
                db,
                sql: "SELECT token, name, keyAuthorization, expiresAt FROM acmeChallenges WHERE \(condition) AND expiresAt > ? ORDER BY expiresAt DESC LIMIT 1",
                arguments: [value, now]
            ).map { ACMEChallengeRecord(token: $0[0], name: $0[1], keyAuthorization: $0[2], expiresAt: $0[3]) }
        }
    }

    public func deleteACMEChallenge(token: String, now: Int64) async throws(StoreError) {
        try await write { db in try db.execute(sql: "DELETE FROM acmeChallenges WHERE token = ? OR expiresAt <= ?", arguments: [token, now]) }
    }
}
