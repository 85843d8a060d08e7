import Testing

@testable import LinkDomain
@testable import LinkDomainCore
@testable import LinkDomainStorage

@Suite("Import: createdAt")
struct ImportTimesTests {
    @Test("seconds, milliseconds and ISO 8601; a number whose milliseconds overflow is invalid, not a trap")
    func times() {
        #expect(ShortLinkImporter.milliseconds("1700000000") == 1_700_000_000_000)
        #expect(ShortLinkImporter.milliseconds("1700000000123") == 1_700_000_000_123)
        #expect(ShortLinkImporter.milliseconds("2023-11-14T22:13:20Z") == 1_700_000_000_000)
        #expect(ShortLinkImporter.milliseconds("-9223372036854776") == nil)
        #expect(ShortLinkImporter.milliseconds("-9223372036854775808") == nil)
    }
}
