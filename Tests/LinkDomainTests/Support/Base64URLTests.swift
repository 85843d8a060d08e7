import Foundation
import Testing

@testable import LinkDomain
@testable import LinkDomainCore
@testable import LinkDomainStorage

@Suite("Base64URL over bytes")
struct Base64URLTests {
    /// What Foundation's base64 gives, in the URL alphabet without padding.
    static func foundation(_ bytes: [UInt8]) -> String {
        Data(bytes).base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    @Test("encodes as Foundation does and decodes back, for every length up to 64 and random bytes")
    func roundTrip() {
        var generator = SystemRandomNumberGenerator()
        for length in 0...64 {
            for _ in 0..<8 {
                let bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
                let encoded = Base64URL.encode(bytes)
                #expect(encoded == Self.foundation(bytes))
                #expect(Base64URL.decode(encoded).map(Array.init) == bytes)
            }
        }
    }

    @Test("padding is accepted at the end only; other alphabets, whitespace and a lone character are refused")
    func refusals() {
        #expect(Base64URL.decode("QQ==").map(Array.init) == [0x41] && Base64URL.decode("QQ").map(Array.init) == [0x41])
        #expect(Base64URL.decode("QUI=").map(Array.init) == [0x41, 0x42])
        for bad in ["Q", "QQ==Q", "QQ===", "a+b/", "QQ Q", "QQ\n", "é"] { #expect(Base64URL.decode(bad) == nil, "\(bad)") }
        #expect(Base64URL.decode("")?.isEmpty == true)
    }
}
