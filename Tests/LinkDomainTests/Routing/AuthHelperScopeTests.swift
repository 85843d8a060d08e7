import Testing

@testable import LinkDomainCore

@Suite("What the sign-in helper's origin may be asked, and what may be kept")
struct AuthHelperScopeTests {
    @Test("Firebase's helper paths and SDK files are relayed with their query unchanged")
    func helperPaths() {
        for target in [
            "/__/auth/handler?apiKey=k&appName=%5BDEFAULT%5D&authType=signInViaRedirect&redirectUrl=https%3A%2F%2Fapp.example.com%2F",
            "/__/auth/handler.js", "/__/auth/iframe?apiKey=k&v=10.14.1", "/__/auth/iframe.js", "/__/auth/experiments.js",
            "/__/auth/something-new.js", "/__/firebase/10.14.1/firebase-app.js", "/__/firebase/init.js",
        ] {
            #expect(AuthHelperScope.decide(method: "GET", target: Substring(target)) == .relay(target: Substring(target)), "\(target)")
        }
        #expect(AuthHelperScope.decide(method: "HEAD", target: "/__/auth/iframe.js") == .relay(target: "/__/auth/iframe.js"))
    }

    @Test("LinkDomain's own pages, init.json and everything outside the two prefixes are never relayed")
    func ownPages() {
        for target in [
            "/__/auth/links?link=x", "/__/auth/action", "/__/auth/action/x", "/__/auth/new-link", "/__/auth/done", "/__/auth/reset-request",
            "/__/firebase/init.json", "/__/console", "/healthz", "/__/auth/", "/__/firebase/", "/__/authx/handler", "/__/static/page.js",
        ] {
            #expect(AuthHelperScope.decide(method: "GET", target: Substring(target)) == .refused, "\(target)")
        }
    }

    @Test("encoded dots, slashes and backslashes, dot segments and empty segments are refused before anything is sent")
    func traversal() {
        for target in [
            "/__/auth/..%2f..%2fhealthz", "/__/auth/%2e%2e/%2e%2e/metrics", "/__/auth/%2E%2E/x", "/__/auth/a%5c..%5cb", "/__/auth/a%252e%252e/b",
            "/__/auth/../metrics", "/__/auth/a/../../b", "/__/firebase/../auth/links", "/__/auth//x", "/__/auth/handler\\..\\x",
            "/__/auth/handler#x", "/__/auth/hand ler", "/__/auth/" + String(repeating: "a", count: 9000), "/__/auth/./action",
            "/__/firebase/./init.json", "/__/auth/Links?link=x", "/__/firebase/INIT.json", "/__/auth/handler/", "/__/auth/./handler",
        ] {
            #expect(AuthHelperScope.decide(method: "GET", target: Substring(target)) == .refused, "\(target)")
        }
    }

    @Test("POST only at the handler (Sign in with Apple's form_post); other methods are not allowed")
    func methods() {
        #expect(AuthHelperScope.decide(method: "POST", target: "/__/auth/handler") == .relay(target: "/__/auth/handler"))
        #expect(AuthHelperScope.decide(method: "POST", target: "/__/auth/iframe") == .methodNotAllowed(allowed: "GET, HEAD"))
        #expect(AuthHelperScope.decide(method: "DELETE", target: "/__/auth/handler?x=1") == .methodNotAllowed(allowed: "GET, HEAD, POST"))
        #expect(AuthHelperScope.decide(method: "POST", target: "/__/auth/links") == .refused)
    }

    @Test("kept for the origin's shared lifetime; private, no-store, no-cache, Vary and non-200 answers are not kept")
    func cachePolicy() {
        #expect(HelperCachePolicy.freshSeconds(status: 200, cacheControl: "public, max-age=1800", vary: nil) == 1800)
        #expect(HelperCachePolicy.freshSeconds(status: 200, cacheControl: "max-age=60, s-maxage=600", vary: "Accept-Encoding") == 600)
        #expect(HelperCachePolicy.freshSeconds(status: 200, cacheControl: "max-age=\"90\"", vary: nil) == 90)
        #expect(HelperCachePolicy.freshSeconds(status: 200, cacheControl: "max-age=99999999999999999999", vary: nil) == nil)
        #expect(HelperCachePolicy.freshSeconds(status: 200, cacheControl: "max-age=31536000", vary: nil) == HelperCachePolicy.longestSeconds)
        #expect(HelperCachePolicy.freshSeconds(status: 200, cacheControl: "private, max-age=600", vary: nil) == nil)
        #expect(HelperCachePolicy.freshSeconds(status: 200, cacheControl: "no-store", vary: nil) == nil)
        #expect(HelperCachePolicy.freshSeconds(status: 200, cacheControl: "max-age=600, no-cache", vary: nil) == nil)
        #expect(HelperCachePolicy.freshSeconds(status: 200, cacheControl: "max-age=0", vary: nil) == nil)
        #expect(HelperCachePolicy.freshSeconds(status: 200, cacheControl: "max-age=600", vary: "Cookie") == nil)
        #expect(HelperCachePolicy.freshSeconds(status: 200, cacheControl: nil, vary: nil) == nil)
        #expect(HelperCachePolicy.freshSeconds(status: 404, cacheControl: "max-age=600", vary: nil) == nil)
        #expect(HelperCachePolicy.freshSeconds(status: 200, cacheControl: "max-age=600, no-store", vary: nil) == nil)
        #expect(HelperCachePolicy.mayServeStale(cacheControl: "public, max-age=600"))
        #expect(!HelperCachePolicy.mayServeStale(cacheControl: "max-age=600, must-revalidate"))
    }
}
