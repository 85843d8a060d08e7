/// The scheme, host and port of an `http`/`https` URL, read strictly: an ASCII authority with no
/// userinfo, backslashes or percent-escapes, a numeric port; no spaces, control characters or
/// backslashes anywhere. Anything a browser might read differently is refused, so that the host we
/// check is the host a browser will visit. The path, query and fragment may hold non-ASCII text
/// (`/café?q=ü`), as Google accepts; ``asciiSerialized(_:)`` escapes it for a `Location` header.
package struct WebAddress: Equatable {
    package var scheme: String
    /// Lower-cased.
    package var host: String
    package var port: Int?
    /// Path, query and fragment, as written.
    package var rest: Substring

    package var isLoopback: Bool { host == "localhost" || host == "127.0.0.1" || host == "[::1]" }

    /// The host of an authority (`host[:port]`, a `Host` field): the port dropped, an IPv6 literal
    /// kept in its brackets; not checked and not lower-cased.
    package static func hostName(ofAuthority authority: some StringProtocol) -> String {
        authority.hasPrefix("[") ? String(authority.prefix { $0 != "]" }) + "]" : String(authority.prefix { $0 != ":" })
    }

    package init?(_ url: String) {
        // Over the contiguous bytes in plain loops, the host written once into its string: every
        // redirect decision reads its target through here.
        var url = url
        guard let parts = url.withUTF8(Self.parts) else { return nil }
        scheme = parts.scheme
        host = parts.host
        port = parts.port
        rest = Substring(url.utf8[url.utf8.index(url.utf8.startIndex, offsetBy: parts.restStart)...])
        guard
            isLoopback
                || host.everyUTF8Byte({
                    (UInt8(ascii: "a")...UInt8(ascii: "z")).contains($0) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0)
                        || $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "-")
                })
        else {
            return nil
        }
    }

    /// The scheme, the host (lower-cased), the port and where the rest starts, if the URL's bytes
    /// pass the checks: no space, control character, DEL or backslash anywhere; `http://` or
    /// `https://` (in any case); an ASCII authority without `@` or `%` naming a host; a port, if any, of
    /// digits only, 1 to 65535 (leading zeros allowed, as browsers read them).
    private static func parts(_ bytes: UnsafeBufferPointer<UInt8>) -> (scheme: String, host: String, port: Int?, restStart: Int)? {
        for byte in bytes where byte <= 0x20 || byte == 0x7F || byte == UInt8(ascii: "\\") { return nil }
        let scheme: String
        if hasPrefix(bytes, "https://") {
            scheme = "https"
        } else if hasPrefix(bytes, "http://") {
            scheme = "http"
        } else {
            return nil
        }
        let start = scheme.utf8.count + 3
        var end = start
        while end < bytes.count, bytes[end] != UInt8(ascii: "/"), bytes[end] != UInt8(ascii: "?"), bytes[end] != UInt8(ascii: "#") {
            let byte = bytes[end]
            guard byte != UInt8(ascii: "@"), byte != UInt8(ascii: "%"), byte < 0x80 else { return nil }
            end += 1
        }
        guard end > start else { return nil }
        var hostEnd = end
        var port: Int?
        // An IPv6 literal's colons are inside its brackets; a port follows the last colon after them.
        if bytes[end - 1] != UInt8(ascii: "]"), let colon = (start..<end).last(where: { bytes[$0] == UInt8(ascii: ":") }) {
            guard colon + 1 < end else { return nil }
            var number = 0
            for index in (colon + 1)..<end {
                let digit = Int(bytes[index]) - Int(UInt8(ascii: "0"))
                // Checked before it grows: no port text, however long, can overflow.
                guard (0...9).contains(digit), number <= 65535 else { return nil }
                number = number * 10 + digit
            }
            guard (1...65535).contains(number) else { return nil }
            port = number
            hostEnd = colon
        }
        // `https://:443/` names no host: a browser refuses it.
        guard hostEnd > start else { return nil }
        // ASCII only (checked above): lower-cased byte by byte, with no Unicode case mapping.
        let host = String(unsafeUninitializedCapacity: hostEnd - start) { output in
            for index in start..<hostEnd { output[index - start] = bytes[index].asciiLowercased }
            return hostEnd - start
        }
        return (scheme, host, port, end)
    }

    /// `url` with every non-ASCII byte percent-escaped (its UTF-8), the rest as written: what a
    /// `Location` header may carry, and what a browser turns back into the same URL.
    package static func asciiSerialized(_ url: String) -> String {
        guard url.someUTF8Byte({ $0 >= 0x80 }) else { return url }
        let hex = Array("0123456789ABCDEF".utf8)
        var bytes: [UInt8] = []
        bytes.reserveCapacity(url.utf8.count * 3)
        for byte in url.utf8 {
            if byte >= 0x80 {
                bytes += [UInt8(ascii: "%"), hex[Int(byte >> 4)], hex[Int(byte & 0x0F)]]
            } else {
                bytes.append(byte)
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// ASCII case-insensitive prefix test; `prefix` is lower case.
    private static func hasPrefix(_ bytes: UnsafeBufferPointer<UInt8>, _ prefix: StaticString) -> Bool {
        guard bytes.count >= prefix.utf8CodeUnitCount else { return false }
        return prefix.withUTF8Buffer { expected in
            zip(bytes, expected).allSatisfy { actual, wanted in
                actual.asciiLowercased == wanted
            }
        }
    }
}
