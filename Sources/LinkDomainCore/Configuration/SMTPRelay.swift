import Foundation

/// Where and how mails leave: `mail.smtpURL`, read once. `smtp://` upgrades with STARTTLS (required
/// unless the relay is on this machine), `smtps://` speaks TLS from the first byte.
public struct SMTPRelay: Sendable, Equatable {
    public enum Security: Sendable, Equatable {
        /// `smtp://`: plain connect, then STARTTLS.
        case startTLS
        /// `smtps://`: TLS from the start (port 465).
        case implicitTLS
    }

    public var security: Security
    public var host: String
    public var port: Int
    /// For AUTH PLAIN or LOGIN; both or neither. Secret.
    public var username: String?
    public var password: String?

    /// A relay on this machine may be spoken to in plain text when it offers no STARTTLS: nothing
    /// crosses a network.
    public var isLoopback: Bool { host == "localhost" || host == "127.0.0.1" || host == "::1" }

    /// The relay `url` names, or nil: `smtp[s]://[user[:password]@]host[:port]` with nothing after
    /// the authority but an optional `/`. The user and password may be percent-encoded.
    public init?(url: String) {
        let security: Security
        let rest: Substring
        if url.hasPrefix("smtps://") {
            security = .implicitTLS
            rest = url.dropFirst(8)
        } else if url.hasPrefix("smtp://") {
            security = .startTLS
            rest = url.dropFirst(7)
        } else {
            return nil
        }
        guard url.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else { return nil }
        var authority = rest
        if authority.hasSuffix("/") { authority = authority.dropLast() }
        guard !authority.contains("/"), !authority.contains("?"), !authority.contains("#") else { return nil }
        if let at = authority.lastIndex(of: "@") {
            let credentials = authority[..<at]
            authority = authority[authority.index(after: at)...]
            let parts = credentials.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
            guard let user = parts.first.flatMap({ String($0).removingPercentEncoding }), !user.isEmpty else { return nil }
            username = user
            password = parts.count == 2 ? (String(parts[1]).removingPercentEncoding ?? "") : ""
        } else {
            username = nil
            password = nil
        }
        var host = authority
        var port = security == .implicitTLS ? 465 : 587
        if host.hasPrefix("["), let close = host.firstIndex(of: "]") {
            let after = host[host.index(after: close)...]
            if after.hasPrefix(":") {
                guard let number = Int(after.dropFirst()), (1...65535).contains(number) else { return nil }
                port = number
            } else if !after.isEmpty {
                return nil
            }
            host = host[host.index(after: host.startIndex)..<close]
        } else if let colon = host.lastIndex(of: ":") {
            guard let number = Int(host[host.index(after: colon)...]), (1...65535).contains(number) else { return nil }
            port = number
            host = host[..<colon]
        }
        guard !host.isEmpty, host.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "." || $0 == "-" || $0 == ":" }) else { return nil }
        self.security = security
        self.host = host.lowercased()
        self.port = port
    }

    /// The URL without its password, for problems and the start-up summary.
    public var redacted: String {
        let scheme = security == .implicitTLS ? "smtps" : "smtp"
        let user = username.map { "\($0):***@" } ?? ""
        let hostPart = host.contains(":") ? "[\(host)]" : host
        return "\(scheme)://\(user)\(hostPart):\(port)"
    }
}
