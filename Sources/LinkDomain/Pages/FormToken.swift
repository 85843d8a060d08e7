import Crypto
import Foundation

/// CSRF protection for the forms that spend codes: the token is an HMAC over the page's mode and
/// code, a per-browser nonce (kept in a SameSite=Strict cookie) and the time it was issued, so a
/// POST is accepted only from a page this service rendered for that code, in that browser, recently.
struct FormToken: Sendable {
    static let lifetimeSeconds: Int64 = 3600
    static let cookieName = "ld_form"

    let key: SymmetricKey

    init(secret: [UInt8]) {
        key = SymmetricKey(data: secret)
    }

    static func randomSecret() -> [UInt8] {
        var generator = SystemRandomNumberGenerator()
        return (0..<32).map { _ in generator.next() }
    }

    static func newNonce() -> String { RandomToken.make(bytes: 16) }

    func token(mode: String, code: String, nonce: String, issuedAt: Int64) -> String {
        "\(issuedAt).\(signature(mode: mode, code: code, nonce: nonce, issuedAt: issuedAt))"
    }

    func isValid(_ token: String, mode: String, code: String, nonce: String?, now: Int64) -> Bool {
        guard let nonce, !nonce.isEmpty else { return false }
        let parts = token.split(separator: ".", maxSplits: 1)
        // The window is computed from `now` alone: the client's number is only compared, never
        // subtracted, so no value it sends can overflow.
        guard parts.count == 2, let issuedAt = Int64(parts[0]), (now - Self.lifetimeSeconds)...(now + 60) ~= issuedAt else {
            return false
        }
        guard let mac = Base64URL.decode(parts[1]) else { return false }
        return HMAC<SHA256>.isValidAuthenticationCode(mac, authenticating: Self.message(mode: mode, code: code, nonce: nonce, issuedAt: issuedAt),
                                                      using: key)
    }

    private func signature(mode: String, code: String, nonce: String, issuedAt: Int64) -> String {
        Base64URL.encode(HMAC<SHA256>.authenticationCode(for: Self.message(mode: mode, code: code, nonce: nonce, issuedAt: issuedAt), using: key))
    }

    private static func message(mode: String, code: String, nonce: String, issuedAt: Int64) -> Data {
        Data("v1|\(mode)|\(code)|\(nonce)|\(issuedAt)".utf8)
    }
}
