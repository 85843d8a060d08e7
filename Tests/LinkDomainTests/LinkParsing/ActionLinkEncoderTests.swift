import Foundation
import Testing

@testable import LinkDomain
@testable import LinkDomainCore
@testable import LinkDomainStorage

/// The two client parsers of docs/wire-formats.md §1, written out, so the encoder is tested against what
/// the SDKs actually do rather than against itself.
enum ClientLinkParsers {
    /// JS SDK: `querystringDecode` splits on `&`, keeps the first two pieces of `split('=')`,
    /// and `decodeURIComponent`s both; `+` stays `+`.
    static func jsQuery(_ query: Substring) -> [String: String] {
        var result: [String: String] = [:]
        for piece in query.split(separator: "&", omittingEmptySubsequences: true) {
            let parts = piece.split(separator: "=", omittingEmptySubsequences: false)
            guard let key = parts.first?.removingPercentEncoding else { continue }
            result[key] = parts.count > 1 ? (parts[1].removingPercentEncoding ?? "") : ""
        }
        return result
    }

    static func query(of url: String) -> Substring {
        guard let mark = url.firstIndex(of: "?") else { return "" }
        return url[url.index(after: mark)...].split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
    }

    /// `ActionCodeURL.parseLink`: unwrap `deep_link_id` / `link`, then require apiKey, oobCode and mode.
    static func js(_ url: String) -> [String: String]? {
        let outer = jsQuery(query(of: url))
        let link = outer["link"]
        let deepLink = outer["deep_link_id"]
        let doubleDeepLink = deepLink.flatMap { jsQuery(query(of: $0))["link"] }
        let linkDeepLink = link.flatMap { jsQuery(query(of: $0))["deep_link_id"] }
        let actionURL = doubleDeepLink ?? deepLink ?? linkDeepLink ?? link ?? url
        let parameters = jsQuery(query(of: actionURL))
        guard parameters["apiKey"] != nil, parameters["oobCode"] != nil, parameters["mode"] != nil else { return nil }
        return parameters
    }

    /// iOS SDK `isSignIn(withEmailLink:)`: `URLComponents.query` (percent-decoded once), split on
    /// `&`, then at the first `=`; a sign-in link when `oobCode` is present and `mode == signIn`.
    static func ios(_ url: String) -> [String: String] {
        guard let decoded = URLComponents(string: url)?.query else { return [:] }
        var result: [String: String] = [:]
        for piece in decoded.split(separator: "&") {
            guard let equals = piece.firstIndex(of: "=") else { continue }
            result[String(piece[..<equals])] = String(piece[piece.index(after: equals)...])
        }
        return result
    }
}

@Suite("Action links as mailed")
struct ActionLinkEncoderTests {
    let encoder = ActionLinkEncoder(baseURL: "https://links.example.com")

    static let continueURLs = [
        "https://app.example.com/finish",
        "https://app.example.com/finish?a=1&b=2",
        "https://app.example.com/привет?q=é&x=a+b%20c#frag",
        "https://app.example.com/p?next=https%3A%2F%2Fother.example.com%2F%3Fx%3D1",
    ]

    @Test("the bare action URL has the documented shape and order")
    func actionURLShape() {
        let url = encoder.actionURL(
            .init(
                apiKey: "KEY", mode: "resetPassword", oobCode: "CODE",
                continueURL: "https://app.example.com/done?a=1&b=2", languageCode: "ru"))
        #expect(
            url == "https://links.example.com/__/auth/action?apiKey=KEY&mode=resetPassword&oobCode=CODE"
                + "&continueUrl=https%3A%2F%2Fapp.example.com%2Fdone%3Fa%3D1%26b%3D2&lang=ru")
    }

    @Test("the wrapped link escapes only = & and % of the action URL")
    func appLinkShape() {
        let link = encoder.appLink(.init(apiKey: "KEY", mode: "signIn", oobCode: "CODE", continueURL: "https://app.example.com/?a=1&b=2"))
        #expect(
            link == "https://links.example.com/__/auth/links?link=https://links.example.com/__/auth/action?apiKey%3DKEY%26mode%3DsignIn"
                + "%26oobCode%3DCODE%26continueUrl%3Dhttps%253A%252F%252Fapp.example.com%252F%253Fa%253D1%2526b%253D2%26lang%3Den")
    }

    @Test("the JS SDK parser recovers every field and an intact continue URL", arguments: continueURLs)
    func jsParser(continueURL: String) throws {
        let parameters = ActionLinkEncoder.Parameters(
            apiKey: "AIza-key_1", mode: "signIn", oobCode: "c0de-_~", continueURL: continueURL,
            languageCode: "pt-BR", tenantID: "tenant-1")
        for link in [encoder.appLink(parameters), encoder.actionURL(parameters)] {
            let parsed = try #require(ClientLinkParsers.js(link), "\(link)")
            #expect(parsed["apiKey"] == "AIza-key_1")
            #expect(parsed["mode"] == "signIn")
            #expect(parsed["oobCode"] == "c0de-_~")
            #expect(parsed["continueUrl"] == continueURL)
            #expect(parsed["lang"] == "pt-BR")
            #expect(parsed["tenantId"] == "tenant-1")
        }
    }

    @Test("the iOS SDK parser sees a sign-in link and recovers the fields", arguments: continueURLs)
    func iosParser(continueURL: String) throws {
        let link = encoder.appLink(.init(apiKey: "AIza-key_1", mode: "signIn", oobCode: "c0de-_~", continueURL: continueURL))
        let parsed = ClientLinkParsers.ios(link)
        #expect(parsed["mode"] == "signIn")
        #expect(parsed["oobCode"] == "c0de-_~")
        // apiKey rides inside the `link` value, after the action URL's `?`.
        #expect(parsed["link"] == "https://links.example.com/__/auth/action?apiKey=AIza-key_1")
        // The continue URL arrives encoded once, with its own `&` and `=` intact; one more decode restores it.
        #expect(parsed["continueUrl"]?.removingPercentEncoding == continueURL)
    }

    @Test("percent-encoding leaves only unreserved characters")
    func percentEncoding() {
        #expect(ActionLinkEncoder.percentEncode("a b&c=d/é~") == "a%20b%26c%3Dd%2F%C3%A9~")
    }
}
