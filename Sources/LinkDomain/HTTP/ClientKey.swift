import Foundation
import LinkDomainCore
import LinkDomainStorage
import NIOCore

/// Who a per-client budget counts: an IPv4 address, or the /64 an IPv6 address is in. One
/// subscriber or host is routinely given a whole /64 (2^64 addresses), so counting IPv6 clients by
/// address would give one attacker 2^64 budgets (docs/security.md, "Per-client budgets").
enum ClientKey {
    /// The key for `address` (already resolved behind trusted proxies): an IPv4 address as
    /// written, an IPv4-mapped IPv6 address as its IPv4 address, an IPv6 address as its /64
    /// (`2001:db8:1:2::/64`), anything else as given.
    static func of(_ address: String) -> String {
        // Bytes, not Foundation's `contains` (a CFString search): every page check asks this.
        guard address.utf8.contains(UInt8(ascii: ":")) else { return address }
        // A zone (`fe80::1%eth0`) names an interface, not a client.
        let bare = address.split(separator: "%", maxSplits: 1).first.map(String.init) ?? address
        var bytes = in6_addr()
        guard bare.utf8.count <= 64, inet_pton(AF_INET6, bare, &bytes) == 1 else { return address }
        let octets = withUnsafeBytes(of: &bytes) { Array($0) }
        if octets[0..<10].allSatisfy({ $0 == 0 }), octets[10] == 0xFF, octets[11] == 0xFF {
            return octets[12...].withUnsafeBytes(dottedQuad)
        }
        let groups = stride(from: 0, to: 8, by: 2).map { String(UInt16(octets[$0]) << 8 | UInt16(octets[$0 + 1]), radix: 16) }
        return groups.joined(separator: ":") + "::/64"
    }
}

extension SocketAddress {
    /// The address as text, as NIO's `ipAddress` writes it, without its `inet_ntop` for IPv4 (a
    /// `sprintf` per byte: 2,800 instructions of a sign-in link's answer, 370 here). Every page
    /// check and log line asks.
    var peerText: String? {
        guard case .v4(let address) = self else { return ipAddress }
        return withUnsafeBytes(of: address.address.sin_addr.s_addr) { ClientKey.dottedQuad($0) }
    }
}

extension ClientKey {
    /// Four bytes in network order as `a.b.c.d` (at most 15 characters).
    static func dottedQuad(_ bytes: UnsafeRawBufferPointer) -> String {
        String(unsafeUninitializedCapacity: 15) { text in
            var count = 0
            for (index, byte) in bytes.prefix(4).enumerated() {
                if index > 0 {
                    text[count] = UInt8(ascii: ".")
                    count += 1
                }
                if byte >= 100 {
                    text[count] = UInt8(ascii: "0") + byte / 100
                    count += 1
                }
                if byte >= 10 {
                    text[count] = UInt8(ascii: "0") + byte / 10 % 10
                    count += 1
                }
                text[count] = UInt8(ascii: "0") + byte % 10
                count += 1
            }
            return count
        }
    }
}
