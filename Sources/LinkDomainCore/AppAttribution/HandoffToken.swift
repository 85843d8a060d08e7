import Crypto
import Foundation

/// What a hand-off carries across an app's install: the link the person opened, sealed by this
/// service so that a store's referrer or the pasteboard holds only ciphertext, and no database row
/// is written when a page makes one (scanners and previews open those pages).
package struct Handoff: Sendable, Equatable {
    /// The link as the person opened it (a short link, a long link, an email action link).
    package var link: String
    /// Seconds since 1970 after which it is refused.
    package var expiresAt: Int64
    /// Random: the key under which its one claim is recorded.
    package var id: String
    /// The app the page offered (its bundle ID or package name) and that app's platform: only
    /// that app may claim it.
    package var app: HandoffApp
}

/// The configured app a hand-off is for.
package struct HandoffApp: Sendable, Equatable {
    package enum Store: String, Sendable {
        case apple
        case android
    }

    package var store: Store
    /// The bundle ID or package name.
    package var id: String

    package init(store: Store, id: String) {
        self.store = store
        self.id = id
    }

    /// The app a page offers as ``AppTarget``.
    package init(_ target: AppTarget) {
        switch target.kind {
        case .apple(let app): self.init(store: .apple, id: app.bundleID)
        case .android(let app): self.init(store: .android, id: app.packageName)
        }
    }
}

/// Seals and opens hand-off tokens: ChaCha20-Poly1305 under a key derived from the form secret
/// (`formSecret`; the same on every replica), base64url. A token that was changed, made with
/// another key, or is not one at all does not open.
package struct HandoffSealer: Sendable {
    /// The prefix that marks a token in a Play referrer (`referrer=ldh.<token>`).
    package static let referrerPrefix = "ldh."
    /// The longest link a token carries: a referrer and a pasteboard stay small.
    package static let maximumLinkBytes = 4096

    private let key: SymmetricKey

    package init(secret: [UInt8]) {
        // v2 seals the app too: a v1 token (no app, claimable by any app) does not open.
        key = HKDF<SHA256>.deriveKey(inputKeyMaterial: SymmetricKey(data: secret), info: Data("linkdomain hand-off v2".utf8), outputByteCount: 32)
    }

    /// The token for `link`, for `app` to claim, valid `lifetime` seconds from `now`; nil for no
    /// link or one too long to carry.
    package func seal(link: String, app: HandoffApp, now: Int64, lifetime: Int64) -> String? {
        guard !link.isEmpty, link.utf8.count <= Self.maximumLinkBytes, !app.id.isEmpty, !app.id.contains("\n") else { return nil }
        let id = Base64URL.encode((0..<12).map { _ in UInt8.random(in: 0...255) })
        let (expiresAt, overflow) = now.addingReportingOverflow(lifetime)
        guard !overflow else { return nil }
        let plain = Data(("\(expiresAt)\n\(id)\n\(app.store.rawValue)\n\(app.id)\n" + link).utf8)
        guard let box = try? ChaChaPoly.seal(plain, using: key) else { return nil }
        return Base64URL.encode(Array(box.combined))
    }

    /// What `token` carries, or nil when it does not open (forged, changed, another key, not a token).
    /// Expiry is the caller's to judge, against its clock.
    package func open(_ token: some StringProtocol) -> Handoff? {
        guard token.utf8.count <= 2 * Self.maximumLinkBytes, let bytes = Base64URL.decode(token),
            let box = try? ChaChaPoly.SealedBox(combined: bytes), let plain = try? ChaChaPoly.open(box, using: key),
            let text = String(data: plain, encoding: .utf8)
        else { return nil }
        let parts = text.split(separator: "\n", maxSplits: 4, omittingEmptySubsequences: false)
        guard parts.count == 5, let expiresAt = Int64(parts[0]), !parts[1].isEmpty, let store = HandoffApp.Store(rawValue: String(parts[2])),
            !parts[3].isEmpty, !parts[4].isEmpty
        else { return nil }
        return Handoff(link: String(parts[4]), expiresAt: expiresAt, id: String(parts[1]), app: HandoffApp(store: store, id: String(parts[3])))
    }
}
