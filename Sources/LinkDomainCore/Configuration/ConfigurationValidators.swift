import Foundation

/// Syntax checks for the identifiers a configuration holds. Each returns the normalised value,
/// or nil when the input is not valid.
package enum ConfigurationValidators {
    /// Apple Team IDs: exactly 10 upper-case letters or digits.
    package static func teamID(_ value: String) -> String? {
        value.utf8.count == 10 && value.utf8.allSatisfy { isDigit($0) || (0x41...0x5A).contains($0) } ? value : nil
    }

    /// CFBundleIdentifier: reverse-DNS, two or more dot-separated parts of letters, digits and `-`.
    package static func bundleID(_ value: String) -> String? {
        let parts = value.split(separator: ".", omittingEmptySubsequences: false)
        guard value.utf8.count <= 155, parts.count >= 2 else { return nil }
        let valid = parts.allSatisfy { part in
            !part.isEmpty && part.utf8.allSatisfy { isLetter($0) || isDigit($0) || $0 == UInt8(ascii: "-") }
        }
        return valid ? value : nil
    }

    /// Android application IDs: two or more dot-separated parts, each a letter followed by letters, digits or `_`.
    package static func consoleUserName(_ value: String) -> String? {
        let allowed = value.utf8.allSatisfy {
            isLetter($0) || isDigit($0) || [UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "-"), UInt8(ascii: "@")].contains($0)
        }
        return (1...64).contains(value.utf8.count) && allowed ? value : nil
    }

    package static func packageName(_ value: String) -> String? {
        let parts = value.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count >= 2 else { return nil }
        let valid = parts.allSatisfy { part in
            guard let first = part.utf8.first, isLetter(first) else { return false }
            return part.utf8.allSatisfy { isLetter($0) || isDigit($0) || $0 == UInt8(ascii: "_") }
        }
        return valid ? value : nil
    }

    /// A DNS label: 1 to 63 letters, digits or `-` (a DKIM selector).
    package static func dnsLabel(_ value: String) -> String? {
        (1...63).contains(value.utf8.count) && value.utf8.allSatisfy({ isLetter($0) || isDigit($0) || $0 == UInt8(ascii: "-") }) ? value.lowercased() : nil
    }

    /// `#rrggbb`, lower-cased: the only colour syntax every mail client and page renders alike.
    package static func hexColor(_ value: String) -> String? {
        value.utf8.count == 7 && value.hasPrefix("#") && value.utf8.dropFirst().allSatisfy(isHexDigit) ? value.lowercased() : nil
    }

    /// An `https://` image address (mails load nothing over plain HTTP).
    package static func imageURL(_ value: String) -> String? {
        guard let address = WebAddress(value), address.scheme == "https" else { return nil }
        return value
    }

    /// A footer link: an `https://` URL (`http://` on loopback) or `mailto:` an address.
    package static func footerLink(_ value: String) -> String? {
        if value.hasPrefix("mailto:") { return MailAddress(String(value.dropFirst(7))) == nil ? nil : value }
        guard let address = WebAddress(value), address.scheme == "https" || address.isLoopback else { return nil }
        return value
    }

    /// SHA-256 fingerprints: 32 bytes of hex, with or without `:` separators, any case;
    /// normalised to `14:6D:E9:...` as `assetlinks.json` expects.
    package static func fingerprint(_ value: String) -> String? {
        let hex = value.contains(":") ? value.split(separator: ":", omittingEmptySubsequences: false) : chunks(of: value)
        guard hex.count == 32, hex.allSatisfy({ $0.utf8.count == 2 && $0.utf8.allSatisfy(isHexDigit) }) else {
            return nil
        }
        return hex.map { $0.uppercased() }.joined(separator: ":")
    }

    /// App Store IDs are decimal numbers.
    package static func appStoreID(_ value: String) -> String? {
        !value.isEmpty && value.utf8.count <= 12 && value.utf8.allSatisfy(isDigit) ? value : nil
    }

    /// Host names (ASCII: internationalised names in their `xn--` form), normalised to lower case.
    package static func hostName(_ value: String) -> String? {
        let lowered = value.lowercased()
        let labels = lowered.split(separator: ".", omittingEmptySubsequences: false)
        guard lowered.utf8.count <= 253, !labels.isEmpty else { return nil }
        let valid = labels.allSatisfy { label in
            guard (1...63).contains(label.utf8.count), label.utf8.first != UInt8(ascii: "-"),
                label.utf8.last != UInt8(ascii: "-")
            else { return false }
            return label.utf8.allSatisfy { isLetter($0) || isDigit($0) || $0 == UInt8(ascii: "-") }
        }
        return valid ? lowered : nil
    }

    /// A name to order a certificate for: a DNS host name, not an IP address, no wildcard (the CA
    /// decides whether it issues for it: a public one refuses `localhost`, a test CA may not).
    package static func certificateName(_ value: String) -> String? {
        guard let host = hostName(value), !host.utf8.allSatisfy({ isDigit($0) || $0 == UInt8(ascii: ".") }) else { return nil }
        return host
    }

    /// An ACME directory: `https://`, or `http://` on loopback (a CA run beside the server in tests).
    package static func acmeDirectoryURL(_ value: String) -> String? {
        guard value.utf8.count <= 2048, let address = WebAddress(value), address.scheme == "https" || (address.scheme == "http" && address.isLoopback)
        else { return nil }
        return value
    }

    /// An external account binding's HMAC key: base64url of at least 16 bytes.
    package static func macKey(_ value: String) -> String? {
        guard let bytes = Base64URL.decode(value), bytes.count >= 16 else { return nil }
        return value
    }

    /// A contact address: one `@` with something on each side, no spaces or controls, 254 bytes at most.
    package static func emailAddress(_ value: String) -> String? {
        let parts = value.split(separator: "@", omittingEmptySubsequences: false)
        guard value.utf8.count <= 254, parts.count == 2, !parts[0].isEmpty, !parts[1].isEmpty,
            value.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F && $0 != UInt8(ascii: ",") })
        else { return nil }
        return value
    }

    /// A custom action handler path: `/` followed by path-safe characters.
    package static func actionPath(_ value: String) -> String? {
        guard value.hasPrefix("/"), value.count > 1, !value.hasPrefix("/__/"), !value.hasPrefix("/.well-known") else { return nil }
        return value.utf8.allSatisfy { isLetter($0) || isDigit($0) || "-_/.".utf8.contains($0) } ? value : nil
    }

    /// A backend base URL: http or https, a host, an optional path; no query or credentials.
    package static func backendURL(_ value: String) -> String? {
        guard let components = URLComponents(string: value), let scheme = components.scheme, scheme == "http" || scheme == "https",
            let host = components.host, !host.isEmpty, components.query == nil, components.user == nil
        else { return nil }
        return value.hasSuffix("/") ? String(value.dropLast()) : value
    }

    /// A PostgreSQL URL: `postgres://user[:password]@host[:port]/database`.
    package static func postgresURL(_ value: String) -> String? {
        guard let components = URLComponents(string: value), ["postgres", "postgresql"].contains(components.scheme ?? ""),
            components.host?.isEmpty == false, components.user?.isEmpty == false, components.path.count > 1
        else { return nil }
        return value
    }

    /// Firebase / Google Cloud project IDs.
    package static func projectID(_ value: String) -> String? {
        guard (4...30).contains(value.utf8.count), let first = value.utf8.first, (0x61...0x7A).contains(first) else { return nil }
        return value.utf8.allSatisfy { (0x61...0x7A).contains($0) || isDigit($0) || $0 == UInt8(ascii: "-") } ? value : nil
    }

    /// Association-file path patterns: `/path*`, or `NOT /path*` to exclude.
    package static func pathPattern(_ value: String) -> String? {
        let path = value.hasPrefix("NOT ") ? value.dropFirst(4) : Substring(value)
        guard path.hasPrefix("/"), !path.contains(where: { $0.isWhitespace || $0.isNewline }) else { return nil }
        return value
    }

    /// The public base URL: `https://host[:port]` (or `http://` for a loopback host), no path,
    /// query or fragment; a single trailing `/` is dropped.
    package static func publicBaseURL(_ value: String) -> String? {
        let trimmed = value.hasSuffix("/") ? String(value.dropLast()) : value
        guard let address = WebAddress(trimmed), address.rest.isEmpty, address.scheme == "https" || address.isLoopback,
            address.isLoopback || hostName(address.host) != nil
        else { return nil }
        return trimmed.lowercased()
    }

    /// An `https://host[:port]` origin with no path (a related origin of passkeys); lower-cased.
    package static func httpsOrigin(_ value: String) -> String? {
        guard let origin = publicBaseURL(value), origin.hasPrefix("https://") else { return nil }
        return origin
    }

    /// An `https://` URL (a page of the app's own site that password managers send people to).
    package static func httpsURL(_ value: String) -> String? {
        guard value.utf8.count <= 2048, let address = WebAddress(value), address.scheme == "https", hostName(address.host) != nil else { return nil }
        return value
    }

    /// One of a web app's Firebase config values (`appId`, `messagingSenderId`, `storageBucket`,
    /// `measurementId`): 1 to 128 letters, digits, `:`, `.`, `_` or `-`.
    package static func webAppValue(_ value: String) -> String? {
        (1...128).contains(value.utf8.count)
            && value.utf8.allSatisfy({ isLetter($0) || isDigit($0) || ":._-".utf8.contains($0) }) ? value : nil
    }

    private static func chunks(of value: String) -> [Substring] {
        var result: [Substring] = []
        var index = value.startIndex
        while index < value.endIndex {
            let end = value.index(index, offsetBy: 2, limitedBy: value.endIndex) ?? value.endIndex
            result.append(value[index..<end])
            index = end
        }
        return result
    }

    private static func isDigit(_ byte: UInt8) -> Bool { (0x30...0x39).contains(byte) }
    private static func isLetter(_ byte: UInt8) -> Bool { (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte) }
    private static func isHexDigit(_ byte: UInt8) -> Bool {
        isDigit(byte) || (0x41...0x46).contains(byte) || (0x61...0x66).contains(byte)
    }
}
