import Testing

@testable import LinkDomain

@Suite("Form tokens")
struct FormTokenTests {
    let tokens = FormToken(secret: Array(repeating: 7, count: 32))
    let now: Int64 = 1_800_000_000

    @Test("a token is good for its code, nonce and hour only")
    func window() {
        let token = tokens.token(mode: "resetPassword", code: "c", nonce: "n", issuedAt: now)
        #expect(tokens.isValid(token, mode: "resetPassword", code: "c", nonce: "n", now: now + 3600))
        #expect(!tokens.isValid(token, mode: "resetPassword", code: "c", nonce: "n", now: now + 3601))
        #expect(!tokens.isValid(token, mode: "resetPassword", code: "c", nonce: "n", now: now - 61))
        #expect(!tokens.isValid(token, mode: "resetPassword", code: "other", nonce: "n", now: now))
        #expect(!tokens.isValid(token, mode: "resetPassword", code: "c", nonce: "m", now: now))
    }

    @Test("issue times at the ends of Int64 are refused, not overflowed", arguments: [Int64.min, Int64.max, Int64.min + 1])
    func extremes(issuedAt: Int64) {
        #expect(!tokens.isValid("\(issuedAt).AAAA", mode: "resetPassword", code: "c", nonce: "n", now: now))
    }
}
