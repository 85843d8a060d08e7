import GRDB
import LinkDomainCore

/// The SQLite schema, one migration a step; GRDB applies each once, in order, when the file opens.
extension SQLiteStore {
    package static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("1: accounts, codes, refresh tokens, signing keys") { db in
            try db.create(table: "users") { table in
                table.column("tenantID", .text).notNull()
                table.column("localID", .text).notNull()
                table.column("email", .text)
                table.column("emailVerified", .boolean).notNull()
                table.column("passwordHash", .text)
                table.column("passwordUpdatedAt", .integer)
                table.column("displayName", .text)
                table.column("photoURL", .text)
                table.column("disabled", .boolean).notNull()
                table.column("emailLinkSignIn", .boolean).notNull()
                table.column("createdAt", .integer).notNull()
                table.column("lastLoginAt", .integer)
                table.column("validSince", .integer).notNull()
                table.primaryKey(["tenantID", "localID"])
            }
            try db.create(index: "users_email", on: "users", columns: ["tenantID", "email"], unique: true)
            try db.create(table: "oobCodes") { table in
                table.primaryKey("code", .text)
                table.column("projectID", .text).notNull()
                table.column("tenantID", .text).notNull()
                table.column("requestType", .text).notNull()
                table.column("email", .text).notNull()
                table.column("newEmail", .text)
                table.column("localID", .text)
                table.column("link", .text).notNull()
                table.column("createdAt", .integer).notNull()
                table.column("expiresAt", .integer).notNull()
            }
            try db.create(table: "refreshTokens") { table in
                table.primaryKey("token", .text)
                table.column("tenantID", .text).notNull()
                table.column("localID", .text).notNull()
                table.column("createdAt", .integer).notNull()
            }
            try db.create(table: "signingKeys") { table in
                table.primaryKey("id", .integer)
                table.column("pem", .text).notNull()
            }
        }
        migrator.registerMigration("2: short links and link statistics") { db in
            try db.create(table: "shortLinks") { table in
                table.primaryKey("suffix", .text)
                table.column("longLinkQuery", .text).notNull()
                table.column("createdAt", .integer).notNull()
                table.column("origin", .text).notNull()
            }
            try db.create(table: "linkEvents") { table in
                table.column("suffix", .text).notNull()
                table.column("day", .integer).notNull()
                table.column("platform", .text).notNull()
                table.column("event", .text).notNull()
                table.column("count", .integer).notNull()
                table.primaryKey(["suffix", "day", "platform", "event"])
            }
        }
        migrator.registerMigration("3: phone numbers, custom claims, last refresh, imported providers") { db in
            try db.alter(table: "users") { table in
                table.add(column: "phoneNumber", .text)
                table.add(column: "customAttributes", .text)
                table.add(column: "lastRefreshAt", .integer)
                table.add(column: "providerData", .text)
            }
            try db.create(index: "users_phoneNumber", on: "users", columns: ["tenantID", "phoneNumber"], unique: true)
            try db.alter(table: "refreshTokens") { table in
                table.add(column: "provider", .text)
                table.add(column: "claims", .text)
            }
        }
        migrator.registerMigration("4: the outgoing mail queue") { db in
            try db.execute(
                sql: """
                    CREATE TABLE mailQueue (
                        id TEXT PRIMARY KEY NOT NULL, sender TEXT NOT NULL, recipient TEXT NOT NULL, message TEXT, kind TEXT NOT NULL,
                        state TEXT NOT NULL, queuedAt INTEGER NOT NULL, nextAttemptAt INTEGER NOT NULL, attempts INTEGER NOT NULL,
                        lastError TEXT, finishedAt INTEGER, claimedUntil INTEGER);
                    CREATE INDEX mailQueue_due ON mailQueue (state, nextAttemptAt);
                    """)
        }
        migrator.registerMigration("5: account versions, for writes conditional on what was read") { db in
            try db.alter(table: "users") { table in
                table.add(column: "version", .integer).notNull().defaults(to: 0)
            }
        }
        migrator.registerMigration("6: claimed hand-off tokens") { db in
            try db.execute(sql: "CREATE TABLE handoffClaims (id TEXT PRIMARY KEY NOT NULL, claimedAt INTEGER NOT NULL)")
            try db.create(index: "handoffClaims_claimedAt", on: "handoffClaims", columns: ["claimedAt"])
        }
        migrator.registerMigration("7: the console: disabled links, click totals, daily totals, link changes") { db in
            try db.execute(
                sql: """
                    ALTER TABLE shortLinks ADD COLUMN disabled INTEGER NOT NULL DEFAULT 0;
                    ALTER TABLE shortLinks ADD COLUMN clicks INTEGER NOT NULL DEFAULT 0;
                    UPDATE shortLinks SET clicks = (SELECT COALESCE(SUM(count), 0) FROM linkEvents
                                                    WHERE linkEvents.suffix = shortLinks.suffix AND event = 'CLICK');
                    CREATE INDEX shortLinks_createdAt ON shortLinks (createdAt, suffix);
                    CREATE INDEX shortLinks_clicks ON shortLinks (clicks, suffix);
                    CREATE TABLE linkEventDays (
                        day INTEGER NOT NULL, platform TEXT NOT NULL, event TEXT NOT NULL, count INTEGER NOT NULL,
                        PRIMARY KEY (day, platform, event));
                    INSERT INTO linkEventDays SELECT day, platform, event, SUM(count) FROM linkEvents GROUP BY day, platform, event;
                    CREATE TABLE linkChanges (sequence INTEGER PRIMARY KEY AUTOINCREMENT, suffix TEXT NOT NULL, at INTEGER NOT NULL);
                    """)
        }
        migrator.registerMigration("8: the language of each queued mail") { db in
            try db.execute(sql: "ALTER TABLE mailQueue ADD COLUMN language TEXT NOT NULL DEFAULT 'en'")
        }
        migrator.registerMigration("9: hand-off claims kept to their token's expiry, console sign-outs") { db in
            // A claim made before this column existed is kept for the longest lifetime a token can have.
            try db.execute(
                sql: """
                    ALTER TABLE handoffClaims ADD COLUMN keepUntil INTEGER NOT NULL DEFAULT 0;
                    UPDATE handoffClaims SET keepUntil = claimedAt + \(Self.longestHandoffMilliseconds);
                    CREATE INDEX handoffClaims_keepUntil ON handoffClaims (keepUntil);
                    CREATE TABLE consoleSignOuts (actor TEXT PRIMARY KEY NOT NULL, count INTEGER NOT NULL);
                    """)
        }
        migrator.registerMigration("10: whether an app asked for each code") { db in
            try db.execute(sql: "ALTER TABLE oobCodes ADD COLUMN askedByApp BOOLEAN")
        }
        migrator.registerMigration("11: the language an account's apps ask in") { db in
            try db.execute(sql: "ALTER TABLE users ADD COLUMN languageCode TEXT")
        }
        migrator.registerMigration("12: certificates ordered by ACME, their account, the ordering lease") { db in
            try db.execute(
                sql: """
                    CREATE TABLE acmeAccounts (directoryURL TEXT PRIMARY KEY NOT NULL, keyPEM TEXT NOT NULL, accountURL TEXT NOT NULL);
                    CREATE TABLE issuedCertificates (
                        names TEXT PRIMARY KEY NOT NULL, chainPEM TEXT NOT NULL, keyPEM TEXT NOT NULL,
                        notBefore INTEGER NOT NULL, notAfter INTEGER NOT NULL);
                    CREATE TABLE acmeLease (id INTEGER PRIMARY KEY CHECK (id = 1), holder TEXT NOT NULL, until INTEGER NOT NULL);
                    """)
        }
        migrator.registerMigration("13: challenges open while one replica orders, answered by any") { db in
            try db.execute(
                sql: """
                    CREATE TABLE acmeChallenges (
                        token TEXT PRIMARY KEY NOT NULL, name TEXT NOT NULL, keyAuthorization TEXT NOT NULL, expiresAt INTEGER NOT NULL);
                    CREATE INDEX acmeChallenges_name ON acmeChallenges (name, expiresAt);
                    """)
        }
        return migrator
    }

    /// The longest a hand-off token lives (`handoff.lifetimeSeconds` at most a week), in milliseconds.
    package static let longestHandoffMilliseconds: Int64 = 604_800_000
}
