import LinkDomainCore

extension PostgresStore {
    /// The schema, one migration a step; each runs once, in order.
    package static let migrations: [String] = [
        """
        CREATE TABLE users (
            tenant_id TEXT NOT NULL, local_id TEXT NOT NULL, email TEXT, email_verified BOOLEAN NOT NULL,
            password_hash TEXT, password_updated_at BIGINT, display_name TEXT, photo_url TEXT, disabled BOOLEAN NOT NULL,
            email_link_sign_in BOOLEAN NOT NULL, created_at BIGINT NOT NULL, last_login_at BIGINT, valid_since BIGINT NOT NULL,
            PRIMARY KEY (tenant_id, local_id));
        CREATE UNIQUE INDEX users_email ON users (tenant_id, email);
        CREATE TABLE oob_codes (
            code TEXT PRIMARY KEY, project_id TEXT NOT NULL, tenant_id TEXT NOT NULL, request_type TEXT NOT NULL,
            email TEXT NOT NULL, new_email TEXT, local_id TEXT, link TEXT NOT NULL, created_at BIGINT NOT NULL, expires_at BIGINT NOT NULL);
        CREATE TABLE refresh_tokens (token TEXT PRIMARY KEY, tenant_id TEXT NOT NULL, local_id TEXT NOT NULL, created_at BIGINT NOT NULL);
        CREATE TABLE signing_keys (id INTEGER PRIMARY KEY, pem TEXT NOT NULL);
        """,
        """
        CREATE TABLE short_links (suffix TEXT PRIMARY KEY, long_link_query TEXT NOT NULL, created_at BIGINT NOT NULL, origin TEXT NOT NULL);
        CREATE TABLE link_events (
            suffix TEXT NOT NULL, day INTEGER NOT NULL, platform TEXT NOT NULL, event TEXT NOT NULL, count BIGINT NOT NULL,
            PRIMARY KEY (suffix, day, platform, event));
        """,
        """
        ALTER TABLE users ADD COLUMN phone_number TEXT, ADD COLUMN custom_attributes TEXT, ADD COLUMN last_refresh_at BIGINT,
            ADD COLUMN provider_data TEXT;
        CREATE UNIQUE INDEX users_phone_number ON users (tenant_id, phone_number);
        ALTER TABLE refresh_tokens ADD COLUMN provider TEXT, ADD COLUMN claims TEXT;
        """,
        """
        CREATE TABLE mail_queue (
            id TEXT PRIMARY KEY, sender TEXT NOT NULL, recipient TEXT NOT NULL, message TEXT, kind TEXT NOT NULL, state TEXT NOT NULL,
            queued_at BIGINT NOT NULL, next_attempt_at BIGINT NOT NULL, attempts INTEGER NOT NULL, last_error TEXT, finished_at BIGINT,
            claimed_until BIGINT);
        CREATE INDEX mail_queue_due ON mail_queue (state, next_attempt_at);
        """,
        """
        ALTER TABLE users ADD COLUMN version BIGINT NOT NULL DEFAULT 0;
        """,
        """
        CREATE TABLE handoff_claims (id TEXT PRIMARY KEY, claimed_at BIGINT NOT NULL);
        CREATE INDEX handoff_claims_claimed_at ON handoff_claims (claimed_at);
        """,
        """
        ALTER TABLE short_links ADD COLUMN disabled BOOLEAN NOT NULL DEFAULT FALSE, ADD COLUMN clicks BIGINT NOT NULL DEFAULT 0;
        UPDATE short_links SET clicks = totals.clicks FROM (SELECT suffix, SUM(count) AS clicks FROM link_events WHERE event = 'CLICK' GROUP BY suffix) totals
            WHERE short_links.suffix = totals.suffix;
        CREATE INDEX short_links_created_at ON short_links (created_at, suffix);
        CREATE INDEX short_links_clicks ON short_links (clicks, suffix);
        CREATE TABLE link_event_days (
            day INTEGER NOT NULL, platform TEXT NOT NULL, event TEXT NOT NULL, count BIGINT NOT NULL, PRIMARY KEY (day, platform, event));
        INSERT INTO link_event_days SELECT day, platform, event, SUM(count) FROM link_events GROUP BY day, platform, event;
        CREATE TABLE link_changes (sequence BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY, suffix TEXT NOT NULL, at BIGINT NOT NULL);
        """,
        """
        ALTER TABLE mail_queue ADD COLUMN language TEXT NOT NULL DEFAULT 'en';
        """,
        """
        ALTER TABLE handoff_claims ADD COLUMN keep_until BIGINT NOT NULL DEFAULT 0;
        UPDATE handoff_claims SET keep_until = claimed_at + 604800000;
        CREATE INDEX handoff_claims_keep_until ON handoff_claims (keep_until);
        CREATE TABLE console_sign_outs (actor TEXT PRIMARY KEY, count BIGINT NOT NULL);
        CREATE TABLE budget_windows (key TEXT PRIMARY KEY, window_start BIGINT NOT NULL, count BIGINT NOT NULL, previous BIGINT NOT NULL);
        CREATE INDEX budget_windows_window_start ON budget_windows (window_start);
        """,
        """
        ALTER TABLE oob_codes ADD COLUMN asked_by_app BOOLEAN;
        """,
        """
        ALTER TABLE users ADD COLUMN language_code TEXT;
        """,
        """
        CREATE TABLE acme_accounts (directory_url TEXT PRIMARY KEY, key_pem TEXT NOT NULL, account_url TEXT NOT NULL);
        CREATE TABLE issued_certificates (
            names TEXT PRIMARY KEY, chain_pem TEXT NOT NULL, key_pem TEXT NOT NULL, not_before BIGINT NOT NULL, not_after BIGINT NOT NULL);
        CREATE TABLE acme_lease (id INTEGER PRIMARY KEY CHECK (id = 1), holder TEXT NOT NULL, until BIGINT NOT NULL);
        """,
        """
        CREATE TABLE acme_challenges (token TEXT PRIMARY KEY, name TEXT NOT NULL, key_authorization TEXT NOT NULL, expires_at BIGINT NOT NULL);
        CREATE INDEX acme_challenges_name ON acme_challenges (name, expires_at);
        """,
    ]
}
