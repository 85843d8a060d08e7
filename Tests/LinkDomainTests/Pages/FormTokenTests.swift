import Testing

@testable import LinkDomain
@testable import LinkDomainCore
@testable import LinkDomainStorage

@Suite("Form tokens")
struct FormTokenTests {
    let tokens = FormToken(secret: Array(repeating: 7, count: 32))
    let now: Int64 = 1_800_000_000

    @Test("a form token is good for its mode, code and hour only; a result token for its own page")
    func window() {
        let token = tokens.token(mode: "resetPassword", code: "c", issuedAt: now)
        #expect(tokens.isValid(token, mode: "resetPassword", code: "c", now: now + 3600))
        #expect(!tokens.isValid(token, mode: "resetPassword", code: "c", now: now + 3601))
        #expect(!tokens.isValid(token, mode: "resetPassword", code: "c", now: now - 61))
        #expect(!tokens.isValid(token, mode: "resetPassword", code: "other", now: now))
        #expect(!tokens.isValid(token, mode: "verifyEmail", code: "c", now: now))
        // A result token is not a form token, and binds the continue URL it offers.
        let result = tokens.resultToken(mode: "resetPassword", language: "en", continueURL: "https://example.com/", issuedAt: now)
        #expect(tokens.isValidResult(result, mode: "resetPassword", language: "en", continueURL: "https://example.com/", now: now + 86_400))
        #expect(!tokens.isValidResult(result, mode: "resetPassword", language: "en", continueURL: "https://evil.example/", now: now))
        #expect(!tokens.isValid(result, mode: "resetPassword", code: "c", now: now))
    }

    @Test("a MAC cut short, made longer or changed in one bit is refused")
    func alteredMAC() throws {
        let token = tokens.token(mode: "resetPassword", code: "c", issuedAt: now)
        let pieces = token.split(separator: ".")
        var mac = try #require(Base64URL.decode(pieces[1]).map(Array.init))
        #expect(tokens.isValid("\(pieces[0]).\(Base64URL.encode(mac))", mode: "resetPassword", code: "c", now: now))
        for altered in [Array(mac.dropLast()), Array(mac.prefix(1)), mac + [0], mac + mac] {
            #expect(!tokens.isValid("\(pieces[0]).\(Base64URL.encode(altered))", mode: "resetPassword", code: "c", now: now))
        }
        mac[31] ^= 1
        #expect(!tokens.isValid("\(pieces[0]).\(Base64URL.encode(mac))", mode: "resetPassword", code: "c", now: now))
    }

    @Test("issue times at the ends of Int64 are refused, not overflowed", arguments: [Int64.min, Int64.max, Int64.min + 1])
    func extremes(issuedAt: Int64) {
        #expect(!tokens.isValid("\(issuedAt).AAAA", mode: "resetPassword", code: "c", now: now))
    }

    @Test("tokens are an HMAC-SHA256 over length-prefixed parts: the same bytes across releases, so open pages keep working")
    func knownAnswer() {
        let tokens = FormToken(secret: Array(repeating: 1, count: 32))
        let token = tokens.token(mode: "resetPassword", code: "CODE", issuedAt: 1_764_057_600)
        // Python: hmac.new(bytes([1] * 32), b"2:v2|4:form|13:resetPassword|4:CODE|10:1764057600", "sha256"), base64url without padding.
        #expect(token == "1764057600.gdW-zJPPxvBhhnvhSHHpouUoYwxLxkkhahiWHYo1PG0")
        // Each token starts from a copy of the keyed MAC: signing and checking others leaves it as it was.
        _ = tokens.token(mode: "verifyEmail", code: "OTHER", issuedAt: 1)
        #expect(tokens.isValid(token, mode: "resetPassword", code: "CODE", now: 1_764_057_600))
        #expect(tokens.token(mode: "resetPassword", code: "CODE", issuedAt: 1_764_057_600) == token)
    }
}
