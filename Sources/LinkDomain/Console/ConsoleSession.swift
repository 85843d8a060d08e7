import Foundation
import LinkDomainCore
import LinkDomainStorage

/// Who is using the console, and since when.
struct ConsoleSession: Sendable, Equatable {
    /// A console user's name, `admin-key-<8 hex>` (which admin key, not the key), or `development`.
    var actor: String
    /// Seconds since 1970.
    var signedInAt: Int64

    static let development = ConsoleSession(actor: "development", signedInAt: 0)
}

/// The console's signed values: the session cookie and the forms' CSRF tokens, both HMACs made
/// with the form secret (``FormToken``), so that every replica given the same `formSecret` reads
/// what another wrote, and nothing is stored.
///
/// The cookie holds the actor, the sign-in time and the last use, and its MAC also covers a
/// digest of what the actor signed in with (the user's password hash, or the admin key) and how
/// many times the actor has signed out (kept in the database): changing or removing the user or
/// the key, or signing out, ends their sessions everywhere, copies of the cookie included.
struct ConsoleSessionSeal: Sendable {
    let signer: FormToken
    /// A session ends this long after its last use...
    let idleSeconds: Int64
    /// ...and this long after sign-in whatever its use.
    static let absoluteSeconds: Int64 = 12 * 3600
    static let cookieName = "__Host-linkdomain-console"

    /// The cookie's value for `session`, used at `now`.
    func cookie(_ session: ConsoleSession, credentialDigest: String, now: Int64) -> String {
        Base64URL.encode(Array(session.actor.utf8)) + ".\(session.signedInAt)."
            + signer.sign(["console-session", session.actor, credentialDigest, String(session.signedInAt)], issuedAt: now)
    }

    /// The session a cookie holds, if this service made it, it was used within the idle time, and
    /// its credential still exists (`credentialDigest` finds it by actor; nil when it is gone).
    func session(cookie: String, now: Int64, credentialDigest: (String) async throws -> String?) async rethrows -> ConsoleSession? {
        let pieces = cookie.split(separator: ".", maxSplits: 2)
        guard pieces.count == 3, let actorBytes = Base64URL.decode(pieces[0]), let actor = String(data: actorBytes, encoding: .utf8),
            let signedInAt = Int64(pieces[1]), (now - Self.absoluteSeconds)...(now + 60) ~= signedInAt,
            let digest = try await credentialDigest(actor),
            signer.verify(String(pieces[2]), ["console-session", actor, digest, String(signedInAt)], now: now, lifetime: idleSeconds)
        else { return nil }
        return ConsoleSession(actor: actor, signedInAt: signedInAt)
    }

    /// A form's CSRF token: bound to the session and to what the form does.
    func formToken(_ session: ConsoleSession, action: String, now: Int64) -> String {
        signer.sign(["console-form", session.actor, String(session.signedInAt), action], issuedAt: now)
    }

    func isValidFormToken(_ token: String, session: ConsoleSession, action: String, now: Int64) -> Bool {
        signer.verify(token, ["console-form", session.actor, String(session.signedInAt), action], now: now, lifetime: Self.absoluteSeconds)
    }

    /// A change's outcome carried through the redirect after its POST (Post/Redirect/Get), signed
    /// for this session: a link someone else made cannot put words of its own on an operator's page.
    func resultToken(_ session: ConsoleSession, result: String, now: Int64) -> String {
        signer.sign(["console-result", session.actor, String(session.signedInAt), result], issuedAt: now)
    }

    func isValidResultToken(_ token: String, session: ConsoleSession, result: String, now: Int64) -> Bool {
        signer.verify(token, ["console-result", session.actor, String(session.signedInAt), result], now: now, lifetime: 3600)
    }

    /// What a session's MAC covers of a credential: its SHA-256, never the credential.
    static func digest(_ credential: String) -> String {
        KeyDigest.hex(credential)
    }
}
