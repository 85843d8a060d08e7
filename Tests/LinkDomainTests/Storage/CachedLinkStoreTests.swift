@testable import LinkDomain
@testable import LinkDomainCore
@testable import LinkDomainStorage
import Synchronization
import Testing

@Suite("Short links cached by the replica that resolved them")
struct CachedLinkStoreTests {
    static func record(_ suffix: String) -> ShortLinkRecord {
        ShortLinkRecord(suffix: suffix, longLinkQuery: "link=https%3A%2F%2Fexample.com%2F\(suffix)", createdAt: 1, origin: .api)
    }

    @Test("a resolved link is read once; a miss is not kept, so a link made elsewhere a moment later resolves")
    func caching() async throws {
        try await StoreKind.sqlite.withStore { (base) async throws in
            let reads = FlakyLinkStore(base: base)
            let cache = CachedLinkStore(base: reads, capacity: 2)
            #expect(try await cache.shortLink(suffix: "late") == nil)
            try await base.insertShortLink(Self.record("late"))  // as another replica would
            #expect(try await cache.shortLink(suffix: "late") == Self.record("late"))
            #expect(try await cache.shortLink(suffix: "late") == Self.record("late"))
            #expect(reads.reads.withLock { $0 } == 2)
            // Full: the cache starts over rather than grow.
            for suffix in ["a", "b", "c"] { try await base.insertShortLink(Self.record(suffix)) }
            for suffix in ["a", "b", "c", "c"] { _ = try await cache.shortLink(suffix: suffix) }
            #expect(reads.reads.withLock { $0 } == 5)
            #expect(try await cache.shortLink(suffix: "late") == Self.record("late"))
            #expect(reads.reads.withLock { $0 } == 6)
        }
    }
}
