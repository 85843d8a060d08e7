import LinkDomainCore
import PostgresNIO

extension PostgresStore: ACMEStore {
    public func acmeAccount(directoryURL: String) async throws(StoreError) -> ACMEAccountRecord? {
        try await guarded {
            let rows = try await client.query(
                "SELECT key_pem, account_url FROM acme_accounts WHERE directory_url = \(directoryURL)", logger: logger)
            for try await (key, url) in rows.decode((String, String).self) {
                return ACMEAccountRecord(directoryURL: directoryURL, keyPEM: key, accountURL: url)
            }
            return nil
        }
    }

    public func saveACMEAccount(_ account: ACMEAccountRecord) async throws(StoreError) {
        try await guarded {
            try await client.query(
                """
                INSERT INTO acme_accounts (directory_url, key_pem, account_url) VALUES (\(account.directoryURL), \(account.keyPEM), \(account.accountURL))
                ON CONFLICT (directory_url) DO UPDATE SET key_pem = EXCLUDED.key_pem, account_url = EXCLUDED.account_url
                """, logger: logger)
        }
    }

    public func issuedCertificate(names: String) async throws(StoreError) -> IssuedCertificate? {
        try await guarded {
            let rows = try await client.query(
                "SELECT chain_pem, key_pem, not_before, not_after FROM issued_certificates WHERE names = \(names)", logger: logger)
            for try await (chain, key, notBefore, notAfter) in rows.decode((String, String, Int64, Int64).self) {
                return IssuedCertificate(names: names, chainPEM: chain, keyPEM: key, notBefore: notBefore, notAfter: notAfter)
            }
            return nil
        }
    }

    public func saveIssuedCertificate(_ certificate: IssuedCertificate) async throws(StoreError) {
        try await guarded {
            try await client.query(
                """
                INSERT INTO issued_certificates (names, chain_pem, key_pem, not_before, not_after)
                VALUES (\(certificate.names), \(certificate.chainPEM), \(certificate.keyPEM), \(certificate.notBefore), \(certificate.notAfter))
                ON CONFLICT (names) DO UPDATE SET chain_pem = EXCLUDED.chain_pem, key_pem = EXCLUDED.key_pem,
                    not_before = EXCLUDED.not_before, not_after = EXCLUDED.not_after
                """, logger: logger)
        }
    }

    public func takeACMELease(holder: String, now: Int64, until: Int64) async throws(StoreError) -> Bool {
        try await guarded {
            let rows = try await client.query(
                """
                INSERT INTO acme_lease (id, holder, until) VALUES (1, \(holder), \(until))
                ON CONFLICT (id) DO UPDATE SET holder = EXCLUDED.holder, until = EXCLUDED.until
                WHERE acme_lease.until < \(now) OR acme_lease.holder = EXCLUDED.holder
                RETURNING holder
                """, logger: logger)
            for try await _ in rows.decode(String.self) { return true }
            return false
        }
    }

    public func releaseACMELease(holder: String) async throws(StoreError) {
        try await guarded { try await client.query("DELETE FROM acme_lease WHERE holder = \(holder)", logger: logger) }
    }

    public func saveACMEChallenge(_ challenge: ACMEChallengeRecord) async throws(StoreError) {
        try await guarded {
            try await client.query(
                """
                INSERT INTO acme_challenges (token, name, key_authorization, expires_at)
                VALUES (\(challenge.token), \(challenge.name), \(challenge.keyAuthorization), \(challenge.expiresAt))
                ON CONFLICT (token) DO UPDATE SET name = EXCLUDED.name, key_authorization = EXCLUDED.key_authorization, expires_at = EXCLUDED.expires_at
                """, logger: logger)
        }
    }

    public func acmeChallenge(token: String, now: Int64) async throws(StoreError) -> ACMEChallengeRecord? {
        try await guarded {
            let rows = try await client.query(
                "SELECT token, name, key_authorization, expires_at FROM acme_challenges WHERE token = \(token) AND expires_at > \(now)", logger: logger)
            for try await (token, name, keyAuthorization, expiresAt) in rows.decode((String, String, String, Int64).self) {
                return ACMEChallengeRecord(token: token, name: name, keyAuthorization: keyAuthorization, expiresAt: expiresAt)
            }
            return nil
        }
    }

    public func acmeChallenge(name: String, now: Int64) async throws(StoreError) -> ACMEChallengeRecord? {
        try await guarded {
            let rows = try await client.query(
                """
                SELECT token, name, key_authorization, expires_at FROM acme_challenges WHERE name = \(name) AND expires_at > \(now)
                ORDER BY expires_at DESC LIMIT 1
                """, logger: logger)
            for try await (token, name, keyAuthorization, expiresAt) in rows.decode((String, String, String, Int64).self) {
                return ACMEChallengeRecord(token: token, name: name, keyAuthorization: keyAuthorization, expiresAt: expiresAt)
            }
            return nil
        }
    }

    public func deleteACMEChallenge(token: String, now: Int64) async throws(StoreError) {
        try await guarded { try await client.query("DELETE FROM acme_challenges WHERE token = \(token) OR expires_at <= \(now)", logger: logger) }
    }
}
