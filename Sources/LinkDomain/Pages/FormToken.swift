import Crypto
import Foundation
import LinkDomainCore
import LinkDomainStorage

/// Signed tokens for the pages: the form token (an HMAC over the page's mode and code and the
/// time it was issued, so a POST is accepted only from a page this service rendered for that code,
/// recently) and the result token (so the page a POST redirects to says "done" only for an action
/// this service completed).
///
/// The form token is bound to the code, not to the browser: any number of tabs of one link work
/// until the first spends the code (opening a link twice, or in the mail app and then in the
/// browser, must not break the first tab). Forged cross-site posts are refused by the browser's
/// `Sec-Fetch-Site`, and cannot carry a valid token without the code, which is the secret.
struct FormToken: Sendable {
    static let lifetimeSeconds: Int64 = 3600
    /// How long a result page may be reloaded or reached with Back.
    static let resultLifetimeSeconds: Int64 = 86_400

    /// The MAC with the key already taken in, copied for each token: keying hashes two padded
    /// blocks, which was half of a form page's signature (BENCHMARKS.md, "The first page a phone
    /// sees"). A copy shares the keyed state until it is written, then has its own.
    private let keyed: HMAC<SHA256>

    init(secret: [UInt8]) {
        keyed = HMAC(key: SymmetricKey(data: secret))
    }

    static func randomSecret() -> [UInt8] {
        var generator = SystemRandomNumberGenerator()
        return (0..<32).map { _ in generator.next() }
    }

    func token(mode: String, code: String, issuedAt: Int64) -> String {
        sign(["form", mode, code], issuedAt: issuedAt)
    }

    func isValid(_ token: String, mode: String, code: String, now: Int64) -> Bool {
        verify(token, ["form", mode, code], now: now, lifetime: Self.lifetimeSeconds)
    }

    /// The token of a result page: the completed action's mode, language, continue URL and (after an
    /// address was restored) the address.
    func resultToken(mode: String, language: String, continueURL: String?, email: String? = nil, issuedAt: Int64) -> String {
        sign(["done", mode, language, continueURL ?? "", email ?? ""], issuedAt: issuedAt)
    }

    func isValidResult(_ token: String, mode: String, language: String, continueURL: String?, email: String? = nil, now: Int64) -> Bool {
        verify(token, ["done", mode, language, continueURL ?? "", email ?? ""], now: now, lifetime: Self.resultLifetimeSeconds)
    }

    /// The token of the "send me a link to change my password" form: that address, for an hour.
    func resetRequestToken(email: String, issuedAt: Int64) -> String {
        sign(["reset-request", email], issuedAt: issuedAt)
    }

    func isValidResetRequest(_ token: String, email: String, now: Int64) -> Bool {
        verify(token, ["reset-request", email], now: now, lifetime: Self.lifetimeSeconds)
    }

    /// The token of a "send me a new link" form: the link's mode and continue URL, for an hour.
    /// - Parameter forApp: the old link was asked for by an app, and so is the new one.
    func newLinkToken(mode: String, continueURL: String?, forApp: Bool, issuedAt: Int64) -> String {
        sign(["new-link", mode, continueURL ?? "", forApp ? "app" : "web"], issuedAt: issuedAt)
    }

    func isValidNewLink(_ token: String, mode: String, continueURL: String?, forApp: Bool, now: Int64) -> Bool {
        verify(token, ["new-link", mode, continueURL ?? "", forApp ? "app" : "web"], now: now, lifetime: Self.lifetimeSeconds)
    }

    /// The cookie a completed form leaves in its browser (`location.issuedAt.MAC`): the result
    /// page's address, signed over the spent code, so that Back, reload or the mail's link opened
    /// again in that browser shows the result instead of "this link has already been used".
    func doneCookie(code: String, location: String, issuedAt: Int64) -> String {
        Base64URL.encode(Array(location.utf8)) + "." + sign(["done-cookie", code, location], issuedAt: issuedAt)
    }

    /// The result page's address a cookie holds for `code`, when this service signed it for that code within the hour.
    func doneLocation(cookie: String, code: String, now: Int64) -> String? {
        let pieces = cookie.split(separator: ".", maxSplits: 1)
        guard pieces.count == 2, let bytes = Base64URL.decode(pieces[0]), let location = String(data: bytes, encoding: .utf8),
            location.hasPrefix(RoutePaths.actionResult + "?"),
            verify(String(pieces[1]), ["done-cookie", code, location], now: now, lifetime: Self.lifetimeSeconds)
        else { return nil }
        return location
    }

    /// The cookie's name; its value is only ever read back by this service.
    static let doneCookieName = "linkdomain_done"

    /// `issuedAt.MAC`, the MAC over the parts (length-prefixed, so no two lists sign alike) and the time.
    func sign(_ parts: [String], issuedAt: Int64) -> String {
        "\(issuedAt).\(Base64URL.encode(mac(parts, issuedAt: issuedAt)))"
    }

    private func mac(_ parts: [String], issuedAt: Int64) -> [UInt8] {
        var mac = keyed
        mac.update(data: Self.message(parts, issuedAt: issuedAt))
        return mac.finalize().withUnsafeBytes { Array($0) }
    }

    func verify(_ token: String, _ parts: [String], now: Int64, lifetime: Int64) -> Bool {
        let pieces = token.split(separator: ".", maxSplits: 1)
        // The window is computed from `now` alone: the client's number is only compared, never
        // subtracted, so no value it sends can overflow.
        guard pieces.count == 2, let issuedAt = Int64(pieces[0]), (now - lifetime)...(now + 60) ~= issuedAt else { return false }
        guard let given = Base64URL.decode(pieces[1]) else { return false }
        return ConstantTime.equal(given, mac(parts, issuedAt: issuedAt))
    }

    /// `2:v2|4:form|...|10:1764057600`, written as bytes (every form page signs one).
    private static func message(_ parts: [String], issuedAt: Int64) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(parts.reduce(32) { $0 + $1.utf8.count + 6 })
        func add(_ part: String) {
            if !bytes.isEmpty { bytes.append(UInt8(ascii: "|")) }
            bytes += String(part.utf8.count).utf8
            bytes.append(UInt8(ascii: ":"))
            bytes += part.utf8
        }
        add("v2")
        for part in parts { add(part) }
        add(String(issuedAt))
        return bytes
    }
}
