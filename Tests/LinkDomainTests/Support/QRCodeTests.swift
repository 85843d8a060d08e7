import FoundationEssentials
@testable import LinkDomain
@testable import LinkDomainCore
@testable import LinkDomainStorage
import Testing

@Suite("QR codes")
struct QRCodeTests {
    @Test("the smallest version that holds the bytes, up to version 20 at level M; longer is nil, never a trap")
    func versions() {
        #expect(QRCode(Array("https://links.example.com".utf8))?.size == 25)  // 25 bytes: version 2 (version 1 holds 14 at M)
        #expect(QRCode([UInt8](repeating: 0x41, count: 14))?.size == 21)
        #expect(QRCode([UInt8](repeating: 0x41, count: 15))?.size == 25)
        #expect(QRCode([UInt8](repeating: 0x41, count: 666))?.size == 97)  // version 20
        #expect(QRCode([UInt8](repeating: 0x41, count: 667)) == nil)
        #expect(QRCode([])?.size == 21)
    }

    @Test("the finder patterns sit in three corners, and the path draws exactly the dark modules")
    func layout() throws {
        let code = try #require(QRCode(Array("hello".utf8)))
        for (x, y) in [(0, 0), (code.size - 7, 0), (0, code.size - 7)] {
            #expect(code.isDark(x: x, y: y) && code.isDark(x: x + 3, y: y + 3) && !code.isDark(x: x + 1, y: y + 1))
        }
        let dark = code.modules.filter { $0 }.count
        #expect(code.svgPath().components(separatedBy: "z").count - 1 == dark)
        #expect(code.svgPath().allSatisfy { "0123456789Mhvz -".contains($0) })
    }
}
