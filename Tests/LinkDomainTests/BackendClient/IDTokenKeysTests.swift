import Testing

@testable import LinkDomain
@testable import LinkDomainCore
@testable import LinkDomainStorage

@Suite("Published ID-token keys: kept as long as Cache-Control says, within bounds")
struct IDTokenKeysTests {
    @Test(
        "max-age read from Google's header and clamped to a minute .. a day; an hour without one",
        arguments: [
            ("public, max-age=19302, must-revalidate, no-transform", Int64(19302)),
            ("max-age=5", 60), ("MAX-AGE = 999999999999", 86_400), ("no-cache", 3600), ("max-age=nonsense", 3600), ("max-age=-7", 60),
        ])
    func maxAge(header: String, seconds: Int64) {
        #expect(IDTokenKeys.maxAge(header) == seconds)
        #expect(IDTokenKeys.maxAge(nil) == 3600)
    }
}
