import HTTPTypes
import Logging
import Testing

@testable import LinkDomain
@testable import LinkDomainCore
@testable import LinkDomainStorage

/// A short link's redirect is decided once per long link, visitor and method on a thread, and
/// every click is still counted; an edited link is decided again.
@Suite("Short links: redirects decided once")
struct ShortLinkRedirectsTests {
    static let logger = Logger(label: "test")

    static func location(_ responder: ImmediateResponder, _ userAgent: String, method: HTTPRequest.Method = .get, query: Substring? = nil)
        -> String?
    {
        responder.answer(to: .shortLink, method: method, path: "/Dyn1", query: query, headers: .init(userAgent: userAgent), logger: logger)?
            .response.headers[.location]
    }

    @Test("the same redirect each time, every GET counted, platforms apart, an edit decided again, a query of its own not kept")
    func decidedOnce() async throws {
        let services = try await ImmediateResponseTests.withShortLinks()
        let responder = services.immediate
        _ = try await services.linkStore.shortLink(suffix: "Dyn1")
        let iPhone = ImmediateResponseTests.iPhone
        let desktop = ImmediateResponseTests.desktop
        for _ in 0..<3 { #expect(Self.location(responder, desktop) == "https://example.com/product") }
        #expect(Self.location(responder, desktop, method: .head) == "https://example.com/product")
        let key = ShortLinkRedirects.Key(
            suffix: "Dyn1", visitor: PlatformClassifier.classify(userAgent: desktop, platformHint: nil), method: .get)
        let generation = try #require(services.linkCache).generation
        let kept = responder.shortLinkRedirects.current.redirect(key, generation: generation)
        #expect(kept?.location == "https://example.com/product" && kept?.events == [.click, .redirectToFallback])
        // The debug page, asked for by the request's own query, is the router's: never a kept redirect.
        #expect(
            responder.answer(to: .shortLink, method: .get, path: "/Dyn1", query: "d=1", headers: .init(userAgent: desktop), logger: Self.logger) == nil)

        try await services.shortLinkOperations.update(
            suffix: "Dyn1", longLinkQuery: "link=https%3A%2F%2Fexample.com%2Fother&efr=1", actor: "test", logger: Self.logger)
        // Forgotten on the update: what this thread kept is stale, though the cache has the link again.
        #expect(try #require(services.linkCache).generation != generation)
        #expect(responder.shortLinkRedirects.current.redirect(key, generation: try #require(services.linkCache).generation) == nil)
        _ = try await services.linkStore.shortLink(suffix: "Dyn1")
        #expect(Self.location(responder, desktop) == "https://example.com/other")
        #expect(Self.location(responder, iPhone) == "https://example.com/other")

        await services.linkEvents.flush()
        let counts = try await services.linkStore.eventCounts(suffix: "Dyn1", fromDay: 0)
        // Four desktop GETs and one from the iPhone; HEAD and the debug page count nothing.
        #expect(counts.filter { $0.event == .click }.map(\.count).reduce(0, +) == 5)
        #expect(counts.contains(LinkEventCount(platform: .desktop, event: .click, count: 4)))
    }

    @Test("the last redirect answers only its own key in a row, and only in its generation")
    func lastInARow() {
        let redirects = ShortLinkRedirects()
        let desktop = ShortLinkRedirects.Key(suffix: "abc", visitor: Visitor(platform: .desktop), method: .get)
        let iPhone = ShortLinkRedirects.Key(suffix: "abc", visitor: Visitor(platform: .iOS), method: .get)
        let other = ShortLinkRedirects.Key(suffix: "abd", visitor: Visitor(platform: .desktop), method: .get)
        let head = ShortLinkRedirects.Key(suffix: "abc", visitor: Visitor(platform: .desktop), method: .head)
        redirects.keep(.init(generation: 1, status: .found, location: "https://example.com/desktop", events: [.click]), for: desktop)
        redirects.keep(.init(generation: 1, status: .found, location: "https://apps.apple.com/app", events: [.click]), for: iPhone)
        for _ in 0..<2 {
            #expect(redirects.redirect(desktop, generation: 1)?.location == "https://example.com/desktop")
            #expect(redirects.redirect(desktop, generation: 2) == nil)
            #expect(redirects.redirect(other, generation: 1) == nil)
            #expect(redirects.redirect(head, generation: 1) == nil)
            #expect(redirects.redirect(iPhone, generation: 1)?.location == "https://apps.apple.com/app")
            #expect(redirects.redirect(iPhone, generation: 1)?.location == "https://apps.apple.com/app")
        }
        redirects.keep(.init(generation: 3, status: .found, location: "https://example.com/edited", events: [.click]), for: iPhone)
        #expect(redirects.redirect(iPhone, generation: 1) == nil)
        #expect(redirects.redirect(iPhone, generation: 3)?.location == "https://example.com/edited")
    }

    @Test("a thread keeps a bounded number: full, it starts over")
    func bounded() {
        let redirects = ShortLinkRedirects()
        let visitor = Visitor(platform: .desktop)
        for index in 0...ShortLinkRedirects.capacity {
            redirects.keep(
                .init(generation: 1, status: .found, location: "https://example.com/\(index)", events: [.click]),
                for: .init(suffix: "s\(index)", visitor: visitor, method: .get))
        }
        #expect(redirects.redirect(.init(suffix: "s0", visitor: visitor, method: .get), generation: 1) == nil)
        let last = ShortLinkRedirects.Key(suffix: "s\(ShortLinkRedirects.capacity)", visitor: visitor, method: .get)
        #expect(redirects.redirect(last, generation: 1)?.location == "https://example.com/\(ShortLinkRedirects.capacity)")
        #expect(redirects.redirect(last, generation: 2) == nil)
    }
}
