import NIOCore
import Testing

@testable import LinkDomain
@testable import LinkDomainCore
@testable import LinkDomainStorage

@Suite("Who a budget counts, and which hosts development answers")
struct ClientKeyAndHostTests {
    @Test("IPv4 per address, IPv6 per /64, an IPv4-mapped address as its IPv4 address")
    func clientKeys() {
        #expect(ClientKey.of("203.0.113.7") == "203.0.113.7")
        #expect(ClientKey.of("2001:db8:1:2::1") == "2001:db8:1:2::/64")
        #expect(ClientKey.of("2001:db8:1:2:ffff:ffff:ffff:ffff") == ClientKey.of("2001:0db8:0001:0002::5"))
        #expect(ClientKey.of("2001:db8:1:3::1") != ClientKey.of("2001:db8:1:2::1"))
        #expect(ClientKey.of("::ffff:198.51.100.4") == "198.51.100.4")
        #expect(ClientKey.of("fe80::1%eth0") == "fe80:0:0:0::/64")
        #expect(ClientKey.of("unknown") == "unknown")
        #expect(ClientKey.of("not:an:address") == "not:an:address")
    }

    @Test("a peer's IPv4 address is written as NIO writes it; an IPv6 peer as NIO's own text")
    func peerText() throws {
        var addresses = ["0.0.0.0", "255.255.255.255", "127.0.0.1", "10.0.100.9", "192.168.1.10", "1.20.199.250"]
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<500 { addresses.append((0..<4).map { _ in String(UInt8.random(in: 0...255, using: &generator)) }.joined(separator: ".")) }
        for address in addresses {
            let peer = try SocketAddress(ipAddress: address, port: 443)
            #expect(peer.peerText == address)
            #expect(peer.peerText == peer.ipAddress)
        }
        let v6 = try SocketAddress(ipAddress: "2001:db8::7", port: 443)
        #expect(v6.peerText == "2001:db8::7")
        #expect(try SocketAddress(unixDomainSocketPath: "/tmp/peer").peerText == nil)
    }

    @Test("development answers loopback names and its public host, nothing a rebound page names")
    func developmentHosts() {
        let hosts = DevelopmentHosts(publicHost: "127.0.0.1")
        for allowed in ["localhost:8080", "LOCALHOST", "app.localhost:8080", "127.0.0.1:8080", "127.1.2.3", "[::1]:8080", "localhost.", nil] {
            #expect(hosts.allows(allowed), "\(allowed ?? "none")")
        }
        for refused in [
            "rebind.attacker.example:8080", "attacker.example", "localhost.attacker.example", "127.0.0.1.attacker.example",
            "[::2]:8080", "[::1", "", ":8080", "128.0.0.1",
        ] {
            #expect(!hosts.allows(refused), "\(refused)")
        }
        #expect(DevelopmentHosts(publicHost: "dev.test").allows("dev.test:8080"))
        #expect(DevelopmentHosts(publicHost: "dev.test").allows("dev.test"))
        for refused in ["dev.tester", "dev.tes", "dev.test.attacker.example", "dev.test@x"] {
            #expect(!DevelopmentHosts(publicHost: "dev.test").allows(refused), "\(refused)")
        }
    }

    @Test("a relay's reply is kept without addresses, links or codes")
    func relayReplies() {
        let recipient = "victim@example.org"
        #expect(
            RelayReply.redacted("550 5.1.1 <victim@example.org>: Recipient address rejected", recipient: recipient)
                == "550 5.1.1 <recipient>: Recipient address rejected")
        let quoted = RelayReply.redacted(
            "554 5.7.1 blocked https://links.example.com/__/auth/action?mode=resetPassword&oobCode=Q2hhcmxpZSBhbmQgdGhlIGNob2NvbGF0ZQ for other@example.net",
            recipient: recipient)
        #expect(quoted == "554 5.7.1 blocked <link> for <address>")
        #expect(RelayReply.redacted("451 4.7.0 code Q2hhcmxpZSBhbmQgdGhlIGNob2NvbGF0ZSBmYWN0b3J5 held", recipient: recipient) == "451 4.7.0 code <code> held")
        #expect(RelayReply.redacted("Connection refused (127.0.0.1:2525)", recipient: recipient) == "Connection refused (127.0.0.1:2525)")
    }

    @Test("a limiter keeps its clients' spending within a generation, and counts each client by its own bucket")
    func limiter() {
        let limiter = RateLimiter(perMinute: 60, burst: 2)
        #expect(limiter.take("a") == nil && limiter.take("a") == nil)
        #expect(limiter.take("a") != nil, "the burst is spent")
        #expect(limiter.take("b") == nil, "another client has its own")
        // Many clients do not make a take cost more, nor forget a client that is still spending.
        for index in 0..<20_000 { _ = limiter.take("client-\(index)") }
        #expect(limiter.take("a") != nil)
        // A full generation turns: a client found only in the previous one is still out of tokens.
        for index in 20_000..<(RateLimiter.maximumKeys + 1) { _ = limiter.take("client-\(index)") }
        #expect(limiter.take("a") != nil, "kept across the turn")
        #expect(limiter.take("c") == nil, "a new client starts full")
    }
}

@Suite("Budgets shared by replicas")
struct SharedBudgetTests {
    @Test("the sliding estimate counts the previous window's share: a burst across a window's edge is not let through twice")
    func estimate() {
        // 6 late in the last minute, 5 early in this one: 11 within a minute.
        #expect(BudgetCount(current: 5, previous: 6).estimate(elapsed: 5, window: 60) > 10)
        // At the end of this minute the last one no longer counts.
        #expect(BudgetCount(current: 5, previous: 6).estimate(elapsed: 60, window: 60) == 5)
        #expect(BudgetCount(current: 10, previous: 0).estimate(elapsed: 30, window: 60) == 10)
    }
}
