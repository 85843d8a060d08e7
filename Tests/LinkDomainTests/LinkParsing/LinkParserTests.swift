import Foundation
import Testing

@testable import LinkDomain
@testable import LinkDomainCore
@testable import LinkDomainStorage

@Suite("Link parsing: every shape of docs/wire-formats.md §1")
struct LinkParserTests {
    static let action =
        "https://auth.example.com/__/auth/action?apiKey=KEY&mode=signIn&oobCode=CODE"
        + "&continueUrl=https%3A%2F%2Fapp.example.com%2Ffinish%3Fa%3D1%26b%3D2&lang=pt&tenantId=T1"

    static func expectSignIn(_ result: Result<ActionLink, LinkParseError>, shape: LinkShape) throws -> ActionLink {
        let link = try result.get()
        #expect(link.mode == .signIn)
        #expect(link.oobCode == "CODE")
        #expect(link.apiKey == "KEY")
        #expect(link.continueURL == "https://app.example.com/finish?a=1&b=2")
        #expect(link.languageCode == "pt")
        #expect(link.tenantID == "T1")
        #expect(link.shape == shape)
        return link
    }

    @Test("/__/auth/links with the action URL escaped as real mails escape it (only = & %)")
    func authLinksAsMailed() throws {
        let escaped = ActionLinkEncoder.escapeForLinkParameter(Self.action)
        _ = try Self.expectSignIn(LinkParser.parse(path: "/__/auth/links", query: Substring("link=\(escaped)")), shape: .authLinks)
    }

    @Test("/__/auth/links with the action URL fully percent-encoded")
    func authLinksFullyEncoded() throws {
        let encoded = ActionLinkEncoder.percentEncode(Self.action)
        _ = try Self.expectSignIn(LinkParser.parse(path: "/__/auth/links", query: Substring("link=\(encoded)")), shape: .authLinks)
    }

    @Test("/__/auth/links whose link was not escaped at all: the action's parameters sit beside link=")
    func authLinksUnescaped() throws {
        let query =
            "link=https://auth.example.com/__/auth/action?apiKey=KEY&mode=signIn&oobCode=CODE"
            + "&continueUrl=https%3A%2F%2Fapp.example.com%2Ffinish%3Fa%3D1%26b%3D2&lang=pt&tenantId=T1"
        let link = try LinkParser.parse(path: "/__/auth/links", query: Substring(query)).get()
        #expect(link.mode == .signIn && link.oobCode == "CODE" && link.continueURL == "https://app.example.com/finish?a=1&b=2")
    }

    @Test("the bare action URL, at /__/auth/action and at a custom path")
    func bareActionURL() throws {
        for path in ["/__/auth/action", "/auth/custom-handler"] {
            _ = try Self.expectSignIn(LinkParser.parse(url: Self.action.replacingOccurrences(of: "/__/auth/action", with: path)), shape: .actionURL)
        }
    }

    @Test("the Auth emulator's /emulator/action links")
    func emulatorLink() throws {
        let url =
            "http://127.0.0.1:9099/emulator/action?mode=resetPassword&lang=en&oobCode=XYZ&apiKey=fake-api-key"
            + "&continueUrl=http%3A%2F%2Flocalhost%2F&tenantId=tenant-1"
        let link = try LinkParser.parse(url: url).get()
        #expect(link.mode == .resetPassword && link.oobCode == "XYZ" && link.apiKey == "fake-api-key")
        #expect(link.continueURL == "http://localhost/" && link.tenantID == "tenant-1" && link.shape == .emulatorAction)
    }

    @Test("a Dynamic Links long link on any path, with every platform parameter")
    func legacyDynamicLink() throws {
        let query =
            "link=\(ActionLinkEncoder.percentEncode(Self.action))&apn=com.example.android&amv=21&afl=https%3A%2F%2Fexample.com%2Fandroid"
            + "&ibi=com.example.ios&ifl=https%3A%2F%2Fexample.com%2Fios&isi=123456&imv=2.0&ipbi=com.example.ipad"
            + "&ipfl=https%3A%2F%2Fexample.com%2Fipad&ius=exampleapp&efr=1&ofl=https%3A%2F%2Fexample.com%2Fother"
            + "&st=Title&sd=Description&si=https%3A%2F%2Fexample.com%2Fi.png&utm_source=mail"
        for path in ["/", "/some/old/path"] {
            let link = try Self.expectSignIn(LinkParser.parse(path: Substring(path), query: Substring(query)), shape: .legacyDynamicLink)
            let hints = link.hints
            #expect(hints.androidPackageName == "com.example.android" && hints.androidMinimumVersion == 21)
            #expect(hints.androidFallbackURL == "https://example.com/android")
            #expect(hints.iOSBundleID == "com.example.ios" && hints.iOSFallbackURL == "https://example.com/ios")
            #expect(hints.iOSAppStoreID == "123456" && hints.iOSMinimumVersion == "2.0" && hints.iOSCustomScheme == "exampleapp")
            #expect(hints.iPadBundleID == "com.example.ipad" && hints.iPadFallbackURL == "https://example.com/ipad")
            #expect(hints.skipPreviewPage)
            #expect(hints.otherPlatformFallbackURL == "https://example.com/other")
            #expect(hints.socialTitle == "Title" && hints.socialDescription == "Description" && hints.socialImageURL == "https://example.com/i.png")
        }
    }

    @Test("social text written with + for spaces (urlencode in Python, Java, PHP) reads as Google reads it; URLs keep their +")
    func socialTextAsFormText() throws {
        let query =
            "link=" + ActionLinkEncoder.percentEncode(Self.action) + "&st=Spring+sale&sd=20%25+off+now%2B&si=https%3A%2F%2Fexample.com%2Fa+b.png"
            + "&ofl=https%3A%2F%2Fexample.com%2Fq%3Fa%3Db+c"
        let hints = try Self.expectSignIn(LinkParser.parse(path: "/", query: Substring(query)), shape: .legacyDynamicLink).hints
        #expect(hints.socialTitle == "Spring sale" && hints.socialDescription == "20% off now+")
        #expect(hints.socialImageURL == "https://example.com/a+b.png" && hints.otherPlatformFallbackURL == "https://example.com/q?a=b+c")
        let utm = UTMValues(QueryString("utm_campaign=spring+sale&utm_source=news%2Bmail"))
        #expect(utm.campaign == "spring sale" && utm.source == "news+mail")
        // What the debug page and the console list: the text as read, the URLs as written.
        let listed = QueryString(Substring(query + "&utm_source=news+letter")).readableItems.map { "\($0.name)=\($0.value)" }
        #expect(listed.contains("st=Spring sale") && listed.contains("sd=20% off now+") && listed.contains("utm_source=news letter"))
        #expect(listed.contains("ofl=https://example.com/q?a=b+c") && listed.contains("si=https://example.com/a+b.png"))
    }

    @Test("a Dynamic Link wrapping a /__/auth/links link wrapping the action URL")
    func nestedThreeLevels() throws {
        let inner = "https://links.example.com/__/auth/links?link=" + ActionLinkEncoder.escapeForLinkParameter(Self.action)
        let query = "link=\(ActionLinkEncoder.percentEncode(inner))&ibi=com.example.ios"
        let link = try Self.expectSignIn(LinkParser.parse(path: "/", query: Substring(query)), shape: .legacyDynamicLink)
        #expect(link.hints.iOSBundleID == "com.example.ios")
    }

    @Test("deep_link_id forms, in the JS SDK's order of preference")
    func deepLinkForms() throws {
        let encoded = ActionLinkEncoder.percentEncode(Self.action)
        // deep_link_id holding the action URL.
        _ = try Self.expectSignIn(LinkParser.parse(path: "/", query: Substring("deep_link_id=\(encoded)")), shape: .deepLinkID)
        // deep_link_id holding a link= that holds the action URL.
        let wrapped = ActionLinkEncoder.percentEncode("https://x.example.com/?link=\(encoded)")
        _ = try Self.expectSignIn(LinkParser.parse(path: "/", query: Substring("deep_link_id=\(wrapped)")), shape: .deepLinkID)
        // link= holding a deep_link_id= that holds the action URL.
        let viaLink = ActionLinkEncoder.percentEncode("https://x.example.com/?deep_link_id=\(encoded)")
        _ = try Self.expectSignIn(LinkParser.parse(path: "/__/auth/links", query: Substring("link=\(viaLink)")), shape: .authLinks)
    }

    @Test("every mode is recognised; unknown modes and missing parts are typed errors")
    func modesAndErrors() {
        for mode in ActionMode.allCases {
            #expect((try? LinkParser.parse(path: "/__/auth/action", query: Substring("mode=\(mode.rawValue)&oobCode=C")).get())?.mode == mode)
        }
        #expect(LinkParser.parse(path: "/__/auth/action", query: "mode=dance&oobCode=C") == .failure(.unknownMode("dance")))
        #expect(LinkParser.parse(path: "/__/auth/action", query: "mode=signIn") == .failure(.notAnActionLink))
        #expect(LinkParser.parse(path: "/__/auth/action", query: "mode=signIn&oobCode=") == .failure(.notAnActionLink))
        #expect(LinkParser.parse(path: "/__/auth/action", query: "oobCode=C") == .failure(.notAnActionLink))
        #expect(LinkParser.parse(path: "/__/auth/links", query: "link=https%3A%2F%2Fexample.com%2F") == .failure(.notAnActionLink))
        #expect(LinkParser.parse(path: "/", query: "") == .failure(.notAnActionLink))
        let longCode = String(repeating: "a", count: 600)
        #expect(LinkParser.parse(path: "/__/auth/action", query: Substring("mode=signIn&oobCode=\(longCode)")) == .failure(.invalidParameter("oobCode")))
    }

    @Test("nesting deeper than four levels is refused, not followed")
    func depthLimit() {
        var url = Self.action
        for _ in 0..<6 { url = "https://x.example.com/?link=" + ActionLinkEncoder.percentEncode(url) }
        #expect(LinkParser.parse(url: url) == .failure(.notAnActionLink))
    }

    @Test("property: random input never traps, and every encoded link parses back to its parameters")
    func properties() throws {
        var random = SeededRandom(seed: 0x5EED)
        let alphabet = Array("abcXYZ019-_.~%&=?#/:+ @\\éжü\u{0}\u{7F}")
        for _ in 0..<20_000 {
            let length = Int.random(in: 0..<80, using: &random)
            let garbage = String((0..<length).map { _ in alphabet[Int.random(in: 0..<alphabet.count, using: &random)] })
            _ = LinkParser.parse(path: "/__/auth/links", query: Substring(garbage))
            _ = LinkParser.parse(url: garbage)
        }
        let encoder = ActionLinkEncoder(baseURL: "https://links.example.com")
        for _ in 0..<5_000 {
            let mode = ActionMode.allCases[Int.random(in: 0..<ActionMode.allCases.count, using: &random)]
            let code = String((0..<Int.random(in: 1..<40, using: &random)).map { _ in alphabet[Int.random(in: 0..<alphabet.count, using: &random)] })
            let continueURL =
                "https://app.example.com/"
                + String(
                    (0..<Int.random(in: 0..<30, using: &random)).map { _ in
                        alphabet[Int.random(in: 0..<alphabet.count, using: &random)]
                    })
            let parameters = ActionLinkEncoder.Parameters(
                apiKey: "K", mode: mode.rawValue, oobCode: code, continueURL: continueURL,
                languageCode: "en", tenantID: "t")
            for url in [encoder.appLink(parameters), encoder.actionURL(parameters)] {
                let link = try LinkParser.parse(url: url).get()
                #expect(link.mode == mode && link.oobCode == code && link.continueURL == continueURL && link.tenantID == "t", "\(url)")
            }
        }
    }
}

/// A small deterministic generator (SplitMix64), so property tests fail the same way every run.
struct SeededRandom: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

@Suite("Platform hints")
struct PlatformHintsTests {
    @Test("every hint is part of the value: setting any one makes the hints not empty")
    func isEmptyReadsEveryField() {
        // Each public hint reads and writes the stored fields; one stored anywhere else would be
        // lost to isEmpty and to equality.
        #expect(Mirror(reflecting: PlatformHints.Fields()).children.count == 15)
        #expect(PlatformHints().isEmpty)
        let setters: [(inout PlatformHints) -> Void] = [
            { $0.androidPackageName = "" }, { $0.androidFallbackURL = "" }, { $0.androidMinimumVersion = 0 }, { $0.iOSBundleID = "" },
            { $0.iOSFallbackURL = "" }, { $0.iOSAppStoreID = "" }, { $0.iOSMinimumVersion = "" }, { $0.iPadBundleID = "" },
            { $0.iPadFallbackURL = "" }, { $0.iOSCustomScheme = "" }, { $0.otherPlatformFallbackURL = "" }, { $0.skipPreviewPage = true },
            { $0.socialTitle = "" }, { $0.socialDescription = "" }, { $0.socialImageURL = "" },
        ]
        for (index, set) in setters.enumerated() {
            var hints = PlatformHints()
            set(&hints)
            #expect(!hints.isEmpty && hints != PlatformHints(), "field \(index)")
        }
    }
}
