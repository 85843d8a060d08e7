import Testing

@testable import LinkDomain
@testable import LinkDomainCore
@testable import LinkDomainStorage

/// The byte-level code on every click (query parsing, user-agent markers, the sign-in redirect)
/// is written for speed; these plain versions say what it must compute, and random inputs check
/// that it does.
@Suite("Hot-path byte code against plain reference versions")
struct HotPathPropertyTests {
    /// SplitMix64: a fixed seed, so a failure names an input that reproduces.
    struct SeededGenerator: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE5_E9B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }

    /// Random text over the characters that matter to these parsers, and some that do not.
    static func randomText(_ generator: inout SeededGenerator, alphabet: [String], maximumLength: Int = 40) -> String {
        (0..<Int.random(in: 0...maximumLength, using: &generator)).map { _ in alphabet.randomElement(using: &generator) ?? "" }.joined()
    }

    static let queryAlphabet = ["a", "b", "=", "&", "%", "%2", "%41", "%e2%82%ac", "%FF", "+", "F", "z", "é", "€", "?", "#", "%%", "0"]

    // MARK: QueryString

    static func referenceItems(_ query: String) -> [(String, String)] {
        query.split(separator: "&", omittingEmptySubsequences: true).map { piece in
            let parts = piece.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            return (referenceDecode(Array(parts[0].utf8)), parts.count > 1 ? referenceDecode(Array(parts[1].utf8)) : "")
        }
    }

    static func referenceDecode(_ bytes: [UInt8]) -> String {
        func hex(_ byte: UInt8) -> UInt8? { UInt8(String(UnicodeScalar(byte)), radix: 16) }
        var output: [UInt8] = []
        var index = 0
        while index < bytes.count {
            if bytes[index] == UInt8(ascii: "%"), index + 2 < bytes.count, let high = hex(bytes[index + 1]), let low = hex(bytes[index + 2]) {
                output.append(high * 16 + low)
                index += 3
            } else if bytes[index] == UInt8(ascii: "%") {
                let end = min(index + 3, bytes.count)
                output += bytes[index..<end]
                index = end
            } else {
                output.append(bytes[index])
                index += 1
            }
        }
        return String(decoding: output, as: UTF8.self)
    }

    @Test("QueryString: the same parameters as splitting on & and = and decoding each escape")
    func queryString() {
        var generator = SeededGenerator(state: 1)
        for _ in 0..<5000 {
            let query = Self.randomText(&generator, alphabet: Self.queryAlphabet)
            let fast = QueryString(Substring(query)).items.map { [$0.name, $0.value] }
            let plain = Self.referenceItems(query).map { [$0.0, $0.1] }
            #expect(fast == plain, "query \(query.debugDescription)")
            if fast != plain { return }
        }
    }

    @Test("QueryString.has: present exactly when QueryString finds a value for the name")
    func queryStringHas() {
        let alphabet = Self.queryAlphabet + ["refused", "refuse", "refusedx", "r%65fused", "%72efused", "&refused=", "&refused", "=weak"]
        var generator = SeededGenerator(state: 5)
        for _ in 0..<5000 {
            let query = Self.randomText(&generator, alphabet: alphabet)
            for name in ["refused", "a", ""] {
                let present = QueryString(Substring(query))[name] != nil
                #expect(QueryString.has(name, in: Substring(query)) == present, "\(name) in \(query.debugDescription)")
                if QueryString.has(name, in: Substring(query)) != present { return }
            }
        }
        // A query inside a longer string, as a request's target passes it.
        let target = "/__/auth/action?mode=resetPassword&refused=weak"
        #expect(QueryString.has("refused", in: target[target.index(after: target.firstIndex(of: "?")!)...]))
        #expect(!QueryString.has("mode", in: target[target.index(target.startIndex, offsetBy: 2)..<target.index(target.startIndex, offsetBy: 10)]))
    }

    @Test("LinkParameters: each name it knows has QueryString's first value, and no other name is found")
    func linkParameters() {
        // Known names whole, cut short, run on, and escaped, among the query alphabet.
        let alphabet =
            Self.queryAlphabet + [
                "mode", "oobCode", "link", "deep_link_id", "apn", "ibi", "efr", "d", "web", "si", "mod", "modes",
                "m%6Fde", "%6c%69nk", "continueUrl", "linkDomain", "&mode=", "&link=", "=1",
            ]
        var generator = SeededGenerator(state: 4)
        for _ in 0..<5000 {
            let query = Self.randomText(&generator, alphabet: alphabet)
            let plain = QueryString(Substring(query)), fast = LinkParameters(Substring(query))
            for name in LinkParameters.Name.allCases {
                #expect(fast[name] == plain[name.wireName], "\(name.wireName) in \(query.debugDescription)")
                #expect(fast.contains(name) == (plain[name.wireName] != nil))
                if fast[name] != plain[name.wireName] { return }
            }
        }
        // Offsets and found names are kept for up to 32 names.
        #expect(LinkParameters.Name.allCases.count <= 32)
        // A query inside a longer string, as the router and URL parser pass it.
        let url = "https://h/p?x=1&mode=signIn#frag"
        #expect(LinkParameters(url: url)[.mode] == "signIn")
        #expect(LinkParameters(url: "/no/query#mode=x")[.mode] == nil)
    }

    // MARK: MarkerScanner

    static let markers = ["iphone", "ipad", "android", "bot", "crawler", "fbav", "gsa/", "mobile", "wv)", "cros"]

    static func referenceScan(_ text: String, markers: [String]) -> UInt64 {
        let lowered = Array(text.utf8.map { (0x41...0x5A).contains($0) ? $0 | 0x20 : $0 })
        var found: UInt64 = 0
        for (index, marker) in markers.enumerated() {
            let needle = Array(marker.utf8)
            if lowered.count >= needle.count, (0...(lowered.count - needle.count)).contains(where: { Array(lowered[$0..<($0 + needle.count)]) == needle }) {
                found |= 1 << UInt64(index)
            }
        }
        return found
    }

    @Test("MarkerScanner: the same markers as a case-insensitive search for each")
    func markerScanner() {
        let scanner = MarkerScanner(Self.markers)
        let alphabet = ["i", "P", "h", "O", "n", "e", "a", "D", "r", "o", "b", "T", "/", "W", "v", ")", " ", "é", "fbav", "IPHONE", "Android", "gsa"]
        var generator = SeededGenerator(state: 2)
        for _ in 0..<5000 {
            let text = Self.randomText(&generator, alphabet: alphabet, maximumLength: 30)
            let fast = scanner.scan(text), plain = Self.referenceScan(text, markers: Self.markers)
            #expect(fast == plain, "text \(text.debugDescription)")
            if fast != plain { return }
        }
    }

    // MARK: The sign-in continuation

    static func referenceContinuation(_ continueURL: String, link: ActionLink) -> String {
        let (base, fragment) = continueURL.firstIndex(of: "#").map { (String(continueURL[..<$0]), String(continueURL[$0...])) } ?? (continueURL, "")
        let pairs = [
            ("apiKey", link.apiKey), ("oobCode", link.oobCode), ("mode", link.mode.rawValue), ("lang", link.languageCode ?? "en"),
            ("tenantId", link.tenantID),
        ]
        let added = pairs.compactMap { name, value in value.map { "\(name)=\(ActionLinkEncoder.percentEncode($0))" } }.joined(separator: "&")
        let separator = !base.contains("?") ? "?" : (base.hasSuffix("?") || base.hasSuffix("&") ? "" : "&")
        return base + separator + added + fragment
    }

    @Test("the sign-in continuation: the continue URL's own query and fragment kept, the action's parameters added")
    func signInContinuation() {
        let alphabet = ["https://app.example.com", "/", "p", "?", "&", "=", "#", "x", "é", "%20", "a=1"]
        var generator = SeededGenerator(state: 3)
        for _ in 0..<3000 {
            let url = Self.randomText(&generator, alphabet: alphabet, maximumLength: 12)
            var link = ActionLink(mode: .signIn, oobCode: Self.randomText(&generator, alphabet: ["c", "&", "é", "+"], maximumLength: 6))
            link.apiKey = Bool.random(using: &generator) ? "key" : nil
            link.tenantID = Bool.random(using: &generator) ? "t-1" : nil
            let fast = LinkRouter.signInContinuation(url, link: link), plain = Self.referenceContinuation(url, link: link)
            #expect(fast == plain, "continue URL \(url.debugDescription)")
            if fast != plain { return }
        }
    }
}
