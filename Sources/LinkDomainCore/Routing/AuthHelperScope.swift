import Foundation

/// Which requests the sign-in helper's origin may ever see (docs/design/auth-helper.md, "Scope"),
/// decided on the raw request target before anything is decoded: only Firebase's helper paths
/// under `/__/auth/` and `/__/firebase/`, none of LinkDomain's own, nothing that could be read as
/// another path by a server that decodes or normalises it.
package enum AuthHelperScope {
    package enum Decision: Equatable {
        /// Ask the origin for this target (path and query), unchanged.
        case relay(target: Substring)
        /// Not the helper's: 404, and the origin never hears of it.
        case refused
        /// The helper's, but not with this method: 405, with the methods it takes (`Allow`).
        case methodNotAllowed(allowed: String)
    }

    package static let authPrefix = "/__/auth/"
    package static let firebasePrefix = "/__/firebase/"
    /// Served here, from the configuration.
    package static let firebaseInit = "/__/firebase/init.json"
    /// Where Sign in with Apple's `form_post` arrives: the one path a POST may go to.
    package static let handler = "/__/auth/handler"
    /// The first segments under `/__/auth/` that are LinkDomain's own pages (``RoutePaths``), never relayed.
    package static let ownSegments: Set<Substring> = ["links", "action", "done", "reset-request", "new-link"]
    /// Longer than any helper path or query Firebase writes, short enough to refuse junk early.
    package static let maximumTargetBytes = 8192

    /// - Parameters:
    ///   - method: the request's method, upper-case as sent.
    ///   - target: the request target as it arrived (`/__/auth/handler?apiKey=...`).
    package static func decide(method: String, target: Substring) -> Decision {
        guard target.utf8.count <= maximumTargetBytes else { return .refused }
        let path = target.utf8.firstIndex(of: UInt8(ascii: "?")).map { target[..<$0] } ?? target
        let rest: Substring
        if path.hasPrefix(authPrefix) {
            rest = path.dropFirst(authPrefix.utf8.count)
            let first = rest.prefix { $0 != "/" }
            guard !ownSegments.contains(Substring(first.lowercased())) else { return .refused }
        } else if path.hasPrefix(firebasePrefix) {
            guard path.lowercased() != firebaseInit else { return .refused }
            rest = path.dropFirst(firebasePrefix.utf8.count)
        } else {
            return .refused
        }
        // Firebase's helper files are plain names (`handler`, `iframe.js`, `10.14.1/firebase-app.js`):
        // no escapes at all (so no `%2e`, `%2f`, `%5c`, `%25`), no `.` or `..` segment, no empty one.
        guard !rest.isEmpty, rest.utf8.allSatisfy(isPlainPathByte), !rest.contains(".."), !target.contains("#"),
            !rest.split(separator: "/", omittingEmptySubsequences: false).contains(where: { $0.isEmpty || $0 == "." })
        else { return .refused }
        let takesPost = path == handler
        switch method {
        case "GET", "HEAD": return .relay(target: target)
        case "POST" where takesPost: return .relay(target: target)
        default: return .methodNotAllowed(allowed: takesPost ? "GET, HEAD, POST" : "GET, HEAD")
        }
    }

    private static func isPlainPathByte(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
            || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || byte == UInt8(ascii: "-") || byte == UInt8(ascii: ".")
            || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "~") || byte == UInt8(ascii: "/")
    }
}

/// Whether, and for how long, an answer of the helper's origin may be kept and served again
/// (docs/design/auth-helper.md, "Kept copies"): the origin's own `Cache-Control`, read as a
/// shared cache must (RFC 9111): `private`, `no-store` and `no-cache` keep nothing; `s-maxage`
/// before `max-age`; a `Vary` on anything but `Accept-Encoding` keeps nothing. The origin is never
/// sent cookies or credentials, so its answers cannot be anyone's own; its `Set-Cookie` is dropped.
package enum HelperCachePolicy {
    /// A week: longer lifetimes are cut to it.
    package static let longestSeconds = 604_800
    /// How long past its freshness a kept copy is served while the origin cannot be reached.
    package static let staleIfErrorSeconds = 86_400

    /// Whether a kept answer may be served past its freshness while the origin is down: not when
    /// the origin said `must-revalidate` or `proxy-revalidate`.
    package static func mayServeStale(cacheControl: String) -> Bool {
        !directives(cacheControl).contains { $0.name == "must-revalidate" || $0.name == "proxy-revalidate" }
    }

    /// `Cache-Control`'s directives: each name lower-cased, with its value when it has one.
    private static func directives(_ cacheControl: String) -> [(name: String, value: Substring?)] {
        cacheControl.split(separator: ",").map { directive in
            let parts = directive.split(separator: "=", maxSplits: 1)
            return (parts.first.map { $0.trimmingCharacters(in: .whitespaces).lowercased() } ?? "", parts.count == 2 ? parts[1] : nil)
        }
    }

    /// The seconds a 200 answer to a GET stays fresh, or nil when it may not be kept.
    package static func freshSeconds(status: Int, cacheControl: String?, vary: String?) -> Int? {
        guard status == 200, let cacheControl else { return nil }
        if let vary, vary.split(separator: ",").contains(where: { $0.trimmingCharacters(in: .whitespaces).lowercased() != "accept-encoding" }) {
            return nil
        }
        var maxAge: Int?
        var sharedMaxAge: Int?
        for (name, text) in directives(cacheControl) {
            let value = text.flatMap(Self.seconds)
            switch name {
            case "private", "no-store", "no-cache": return nil
            case "max-age": maxAge = value
            case "s-maxage": sharedMaxAge = value
            default: continue
            }
        }
        guard let seconds = sharedMaxAge ?? maxAge, seconds > 0 else { return nil }
        return min(seconds, longestSeconds)
    }

    /// A delta-seconds value, quoted or not; nil when it is not a number (too large ones cut to a week).
    private static func seconds(_ text: Substring) -> Int? {
        let digits = text.trimmingCharacters(in: .whitespaces).trimmingCharacters(in: ["\""])
        guard !digits.isEmpty, digits.utf8.count <= 12, digits.utf8.allSatisfy({ (0x30...0x39).contains($0) }) else { return nil }
        return Int(digits).map { min($0, longestSeconds) }
    }
}
