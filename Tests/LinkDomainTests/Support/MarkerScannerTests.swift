import Testing

@testable import LinkDomain
@testable import LinkDomainCore
@testable import LinkDomainStorage

@Suite("Marker scanning: which markers a header holds, in one pass")
struct MarkerScannerTests {
    static let scanner = MarkerScanner(["bot", "bo", "iphone", "ipad", "close", "less"])

    func found(_ text: String) -> Set<String> {
        let bits = Self.scanner.scan(text)
        return Set(Self.scanner.markers.indices.filter { bits & (1 << $0) != 0 }.map { Self.scanner.markers[$0] })
    }

    @Test("ASCII case is ignored; markers sharing a first byte, overlapping or at the very end are all found")
    func matches() {
        #expect(found("Mozilla (iPhone; CPU iPhone OS) GoogleBOT") == ["iphone", "bot", "bo"])
        #expect(found("keep-alive, Close") == ["close"])
        #expect(found("ipaD") == ["ipad"])
        #expect(found("x-É-LESS") == ["less"])  // non-ASCII bytes around a marker do not hide it
    }

    @Test("cut-off markers, empty text and non-ASCII bytes find nothing")
    func misses() {
        #expect(found("") == [])
        #expect(found("ipho") == [])
        #expect(found("b") == [])
        #expect(found("bøt ïphone") == [])
    }
}
