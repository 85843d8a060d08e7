import Foundation
import HTTPTypes
import LinkDomainCore
import LinkDomainStorage

/// Headers every response carries: no script but the pages' own file (no inline script, nothing
/// from elsewhere), nothing framed, no Referer (pages carry codes in their URLs); and on HTTPS, HSTS.
struct SecurityHeaders: Sendable {
    /// The policy: images from this origin and, when the pages show a logo from elsewhere, its origin.
    static func contentSecurityPolicy(imageOrigin: String? = nil) -> String {
        "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'\(imageOrigin.map { " " + $0 } ?? ""); form-action 'self'; frame-ancestors 'none'; base-uri 'none'"
    }

    /// `https://host[:port]` of an https URL: what a CSP source names.
    static func origin(_ url: String) -> String? {
        guard let address = WebAddress(url), address.scheme == "https" else { return nil }
        return "https://\(address.host)" + (address.port.map { ":\($0)" } ?? "")
    }

    /// A year; subdomains are left to their own servers.
    static var strictTransportSecurity: String { "max-age=31536000" }

    /// The server terminates TLS itself: every response went over HTTPS.
    let terminatesTLS: Bool
    /// Proxies whose `X-Forwarded-Proto` says whether the client used HTTPS.
    let trustedProxies: Set<String>
    /// Built once: every response carries it.
    let contentSecurityPolicy: String
    /// Every response's headers, without and with HSTS, built once.
    private let plainFields: HTTPFields
    private let httpsFields: HTTPFields

    /// - Parameter imageOrigin: the origin of the configured logo, which pages load.
    init(terminatesTLS: Bool, trustedProxies: Set<String>, imageOrigin: String? = nil) {
        self.terminatesTLS = terminatesTLS
        self.trustedProxies = trustedProxies
        contentSecurityPolicy = Self.contentSecurityPolicy(imageOrigin: imageOrigin)
        plainFields = [.xContentTypeOptions: "nosniff", .referrerPolicy: "no-referrer", .contentSecurityPolicy: contentSecurityPolicy, .xFrameOptions: "DENY"]
        httpsFields = plainFields + [HTTPField(name: .strictTransportSecurity, value: Self.strictTransportSecurity)]
    }

    /// Whether the client reached us over HTTPS (directly, or through a trusted proxy that says so).
    func isHTTPS(peer: @autoclosure () -> String?, requestHeaders: HTTPFields) -> Bool {
        isHTTPS(peer: peer(), forwardedProto: requestHeaders[.xForwardedProto])
    }

    /// The same, from the request's `X-Forwarded-Proto` alone.
    func isHTTPS(peer: @autoclosure () -> String?, forwardedProto: @autoclosure () -> String?) -> Bool {
        if terminatesTLS { return true }
        guard !trustedProxies.isEmpty, let proto = forwardedProto(), let peer = peer(), trustedProxies.contains(peer) else {
            return false
        }
        return proto.split(separator: ",").first?.trimmingCharacters(in: .whitespaces).lowercased() == "https"
    }

    /// An answer relayed from the sign-in helper's origin (marked ``HTTPField/Name/relayedFromOrigin``,
    /// which is removed here, so it never reaches the wire) keeps the origin's own security and
    /// framing rules (the app frames `/__/auth/iframe`): HSTS alone is added to it.
    func add(to headers: inout HTTPFields, peer: @autoclosure () -> String?, requestHeaders: HTTPFields) {
        let https = isHTTPS(peer: peer(), requestHeaders: requestHeaders)
        if headers[.relayedFromOrigin] != nil {
            headers[.relayedFromOrigin] = nil
            if https { headers[.strictTransportSecurity] = Self.strictTransportSecurity }
            return
        }
        for field in fields(https: https) { headers[field.name] = field.value }
    }

    /// The headers themselves, for a response that went over HTTPS or not.
    func fields(https: Bool) -> HTTPFields {
        https ? httpsFields : plainFields
    }
}
