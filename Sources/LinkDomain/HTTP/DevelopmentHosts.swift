import LinkDomainCore
import LinkDomainStorage

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// The `Host` names a development server answers: loopback names and addresses, and its public
/// and pivot hosts. A page on another site can make the browser on the same laptop send requests here under
/// its own name (DNS rebinding: `rebind.attacker.example` resolving to 127.0.0.1); those get
/// 421 Misdirected Request, so "nobody else can reach it" holds for that browser too.
struct DevelopmentHosts: Sendable {
    /// `publicBaseURL`'s host, lower-cased.
    let publicHost: String
    /// `pivotBaseURL`'s host, lower-cased, if any.
    var pivotHost: String?

    /// Whether a request naming `authority` (`Host`, or HTTP/2's `:authority`) is answered. A
    /// request without one (HTTP/1.0) is: no browser sends that.
    func allows(_ authority: String?) -> Bool {
        guard var authority else { return true }
        return authority.withUTF8 { allows(bytes: UnsafeRawBufferPointer($0)) }
    }

    /// ``allows(_:)`` for the field's bytes, as the event loop reads them from the connection: a
    /// string is made of them only when they are not the public host as configured.
    func allows(bytes authority: UnsafeRawBufferPointer?) -> Bool {
        guard let authority else { return true }
        // The usual case, the public host as it was configured: nothing to parse or lower-case.
        // Bytes in place, not Foundation's `contains` (a CFString search that cost more than the
        // rest) nor the generic `starts(with:)` over two UTF-8 views (a thousand instructions), nor
        // `elementsEqual` over them (340).
        var configured = publicHost
        let isPublicHost = configured.withUTF8 { host in
            guard authority.count >= host.count, let given = authority.baseAddress, let start = host.baseAddress,
                memcmp(given, start, host.count) == 0
            else { return false }
            return authority.count == host.count || authority[host.count] == UInt8(ascii: ":") && !host.contains(UInt8(ascii: ":"))
        }
        if isPublicHost { return true }
        guard let host = Self.host(of: String(decoding: authority, as: UTF8.self)) else { return false }
        return host == publicHost || host == pivotHost || Self.isLoopback(host)
    }

    /// The host of an authority (`name:port`, `[v6]:port`), lower-cased, without a final dot.
    static func host(of authority: String) -> String? {
        var host = Substring(authority)
        if host.hasPrefix("[") {
            guard let close = host.firstIndex(of: "]") else { return nil }
            host = host[host.index(after: host.startIndex)..<close]
        } else if let colon = host.firstIndex(of: ":") {
            host = host[..<colon]
        }
        if host.hasSuffix(".") { host = host.dropLast() }
        return host.isEmpty ? nil : host.lowercased()
    }

    /// `localhost` and its subdomains (RFC 6761), 127.0.0.0/8, `::1`.
    static func isLoopback(_ host: String) -> Bool {
        host == "localhost" || host.hasSuffix(".localhost") || host == "::1" || host == "0:0:0:0:0:0:0:1" || ServingMode.isLoopbackIPv4(host)
    }
}
