import LinkDomainCore
import PostgresNIO

/// Writes to an account that hold only if it is still as read (its version): the columns that
/// changed, or a sign-in's times.
extension PostgresStore {
    public func updateUser(_ user: UserRecord, readAs read: UserRecord) async throws(StoreError) {
        try await requireOneRow(Self.update(user, readAs: read))
    }

    /// Writes the columns in which `user` differs from `read`, where the account is still at `read`'s version; returns a row if it was.
    package static func update(_ user: UserRecord, readAs read: UserRecord) -> PostgresQuery {
        let fields = user.changedFields(from: read)
        var bindings = PostgresBindings()
        var assignments: [String] = []
        for field in fields {
            Self.bind(field, of: user, into: &bindings)
            assignments.append("\(Self.column(field)) = $\(bindings.count)")
        }
        assignments.append("version = version + 1")
        bindings.append(read.tenantID)
        bindings.append(read.localID)
        bindings.append(read.version)
        let count = bindings.count
        let sql =
            "UPDATE users SET \(assignments.joined(separator: ", ")) WHERE tenant_id = $\(count - 2) AND local_id = $\(count - 1) "
            + "AND version = $\(count) RETURNING version"
        return PostgresQuery(unsafeSQL: sql, binds: bindings)
    }

    public func commit(_ writes: AuthWrites) async throws(StoreError) -> AuthCommit {
        try await guarded {
            // BEGIN ... COMMIT on one connection: a throw, a lost race or a cut connection anywhere
            // before COMMIT leaves every write unmade.
            try await client.withTransaction(logger: logger) { connection in
                if let spending = writes.spending {
                    // Concurrent spenders queue on the row; the second finds it gone.
                    var spent = false
                    for try await _ in try await connection.query(
                        "DELETE FROM oob_codes WHERE code = \(spending.code) AND expires_at > \(spending.now) RETURNING code", logger: logger)
                    {
                        spent = true
                    }
                    if !spent {
                        var exists = false
                        for try await _ in try await connection.query("SELECT 1 FROM oob_codes WHERE code = \(spending.code)", logger: logger) {
                            exists = true
                        }
                        return exists ? AuthCommit.codeExpired : .codeInvalid
                    }
                }
                for user in writes.insertedUsers { try await connection.query(Self.insertion(of: user), logger: logger) }
                for update in writes.updatedUsers {
                    try await Self.requireOneRow(try await connection.query(Self.update(update.user, readAs: update.read), logger: logger))
                }
                for code in writes.insertedCodes { try await connection.query(Self.insertion(of: code), logger: logger) }
                for token in writes.refreshTokens { try await connection.query(Self.insertion(of: token), logger: logger) }
                for mail in writes.mails { try await connection.query(Self.insertion(of: mail), logger: logger) }
                return AuthCommit.committed
            }
        }
    }

    public func recordSignIn(of read: UserRecord, lastLoginAt: Int64?, lastRefreshAt: Int64) async throws(StoreError) {
        try await requireOneRow(
            """
            UPDATE users SET last_login_at = COALESCE(\(lastLoginAt), last_login_at), last_refresh_at = \(lastRefreshAt)
            WHERE tenant_id = \(read.tenantID) AND local_id = \(read.localID) AND version = \(read.version) RETURNING version
            """)
    }

    /// Runs a conditional write; ``StoreError/conflict`` when its condition held for no row.
    package func requireOneRow(_ query: PostgresQuery) async throws(StoreError) {
        try await guarded { try await Self.requireOneRow(try await client.query(query, logger: logger)) }
    }

    /// ``StoreError/conflict`` unless a conditional write's answer is one row.
    package static func requireOneRow(_ rows: PostgresRowSequence) async throws {
        var count = 0
        for try await _ in rows { count += 1 }
        guard count == 1 else { throw StoreError.conflict }
    }

    private static func column(_ field: UserRecord.Field) -> String {
        switch field {
        case .email: "email"
        case .emailVerified: "email_verified"
        case .passwordHash: "password_hash"
        case .passwordUpdatedAt: "password_updated_at"
        case .displayName: "display_name"
        case .photoURL: "photo_url"
        case .disabled: "disabled"
        case .emailLinkSignIn: "email_link_sign_in"
        case .lastLoginAt: "last_login_at"
        case .validSince: "valid_since"
        case .phoneNumber: "phone_number"
        case .customAttributes: "custom_attributes"
        case .lastRefreshAt: "last_refresh_at"
        case .providerData: "provider_data"
        case .languageCode: "language_code"
        }
    }

    private static func bind(_ field: UserRecord.Field, of user: UserRecord, into bindings: inout PostgresBindings) {
        switch field {
        case .email: bindings.append(user.email)
        case .emailVerified: bindings.append(user.emailVerified)
        case .passwordHash: bindings.append(user.passwordHash)
        case .passwordUpdatedAt: bindings.append(user.passwordUpdatedAt)
        case .displayName: bindings.append(user.displayName)
        case .photoURL: bindings.append(user.photoURL)
        case .disabled: bindings.append(user.disabled)
        case .emailLinkSignIn: bindings.append(user.emailLinkSignIn)
        case .lastLoginAt: bindings.append(user.lastLoginAt)
        case .validSince: bindings.append(user.validSince)
        case .phoneNumber: bindings.append(user.phoneNumber)
        case .customAttributes: bindings.append(user.customAttributes)
        case .lastRefreshAt: bindings.append(user.lastRefreshAt)
        case .providerData: bindings.append(user.providerData)
        case .languageCode: bindings.append(user.languageCode)
        }
    }
}
