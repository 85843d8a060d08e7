import Testing

@testable import LinkDomainCore

@Suite("A long link's query edited")
struct QueryEditTests {
    @Test("the named parameters replaced or removed, every other pair kept as written, new values encoded")
    func setting() {
        let query = "link=https%3A%2F%2Fexample.com%2Fa&apn=com.example&st=Old&utm_source=mail&s%74=escaped&ofl=https%3A%2F%2Fexample.com%2Fd"
        let edited = QueryEdit.setting([("link", "https://example.com/b?x=1&y=2"), ("st", "New title"), ("ofl", "")], in: query)
        #expect(edited == "apn=com.example&utm_source=mail&link=https%3A%2F%2Fexample.com%2Fb%3Fx%3D1%26y%3D2&st=New%20title")
        #expect(QueryEdit.setting([], in: query) == query)
        #expect(QueryEdit.setting([("link", "https://example.com/")], in: "") == "link=https%3A%2F%2Fexample.com%2F")
    }
}
