/// The scheme, host and port of an `http`/`https` URL, read strictly: ASCII only, no userinfo, no
/// backslashes or percent-escapes in the authority, a numeric port. Anything a browser might read
/// differently is refused, so that the host we check is the host a browser will visit.
struct WebAddress: Equatable {
    var scheme: String
    /// Lower-cased.
    var host: String
    var port: Int?
    /// Path, query and fragment, as written.
    var rest: Substring

    var isLoopback: Bool { host == "localhost" || host == "127.0.0.1" || host == "[::1]" }

    init?(_ url: String) {
        guard url.unicodeScalars.allSatisfy({ $0.value > 0x20 && $0.value < 0x7F && $0 != "\\" }) else { return nil }
        let lowered = url.lowercased()
        if lowered.hasPrefix("https://") {
            scheme = "https"
        } else if lowered.hasPrefix("http://") {
            scheme = "http"
        } else {
            return nil
        }
        let afterScheme = url.dropFirst(scheme.count + 3)
        let authority = afterScheme.prefix { $0 != "/" && $0 != "?" && $0 != "#" }.lowercased()
        rest = afterScheme.dropFirst(authority.count)
        guard !authority.isEmpty, !authority.contains("@"), !authority.contains("%") else { return nil }
        var host = Substring(authority)
        if let colon = authority.lastIndex(of: ":"), !authority.hasSuffix("]") {
            guard let number = Int(authority[authority.index(after: colon)...]), (1...65535).contains(number) else { return nil }
            port = number
            host = authority[..<colon]
        }
        self.host = String(host)
        guard isLoopback || host.allSatisfy({ ("a"..."z").contains($0) || ("0"..."9").contains($0) || $0 == "." || $0 == "-" }) else {
            return nil
        }
    }
}
