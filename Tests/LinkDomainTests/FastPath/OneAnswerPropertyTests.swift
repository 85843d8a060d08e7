import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import Testing

@testable import LinkDomain
@testable import LinkDomainCore
@testable import LinkDomainStorage

/// Generated links, visitors and methods: every request gets the same status, headers, body and
/// counted events from the event loop (the server on loopback) as from the router alone.
@Suite("One answer, two transports")
struct OneAnswerPropertyTests {
    static let userAgents = [
        "Mozilla/5.0 (X11; Linux x86_64; rv:125.0) Gecko/20100101 Firefox/125.0",
        "Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1",
        "Mozilla/5.0 (iPad; CPU OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1",
        "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Mobile Safari/537.36",
        "Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148 GSA/312.0.624751698 Mobile/15E148 Safari/604.1",
        "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)",
        "Slackbot-LinkExpanding 1.0 (+https://api.slack.com/robots)",
        "curl/8.5.0",
    ]
    static let acceptLanguages: [String?] = [nil, "ru-RU,ru;q=0.9", "it", ";", "de-CH, de;q=0.9", "pt-PT"]

    /// Codes the generated links carry: live ones of every kind (the form, or another mode's
    /// refusal), an expired one and unknown ones.
    static let liveCodes = OobRequestType.allCases.map { ("Live\($0.rawValue)", $0) }
    static let codes = liveCodes.map(\.0) + ["Expired0", "C1", "C2", "C3"]

    static func pick<T>(_ values: [T], _ random: inout SeededRandom) -> T { values[Int(random.next() % UInt64(values.count))] }
    static func maybe(_ random: inout SeededRandom) -> Bool { random.next() % 2 == 0 }

    /// An email action link's query: every mode (and one that is not), continue URLs allowed,
    /// refused and absent, languages, app hints and the visitor's own switches.
    static func actionQuery(_ random: inout SeededRandom) -> String {
        let mode = pick(
            [
                "signIn", "signIn", "signIn", "resetPassword", "verifyEmail", "recoverEmail", "verifyAndChangeEmail",
                "revertSecondFactorAddition", "bogus",
            ], &random)
        // Half of them the live code of the link's own kind (its form), the others any code.
        let ownCode = ActionMode(rawValue: mode).map { "Live\($0.requestType.rawValue)" }
        var pairs = ["apiKey=k", "mode=" + mode, "oobCode=" + (maybe(&random) ? ownCode ?? pick(codes, &random) : pick(codes, &random))]
        if let continueURL = pick([nil, "https://example.com/done", "https://evil.example.net/", "https://shop.example.com/x?y=1", "notaurl"], &random) {
            pairs.append("continueUrl=" + ActionLinkEncoder.percentEncode(continueURL))
        }
        if let lang = pick([nil, "en", "ru", "it", "xx", "pt-PT"], &random) { pairs.append("lang=" + lang) }
        if maybe(&random) { pairs.append("ibi=" + pick(["com.example.mail", "com.example.shop", "com.other"], &random)) }
        if maybe(&random) { pairs.append("apn=" + pick(["com.example.mail", "com.example.shop", "com.other"], &random)) }
        if maybe(&random) { pairs.append("ifl=" + ActionLinkEncoder.percentEncode(pick(["https://example.com/ios", "https://evil.example.net/"], &random))) }
        return pairs.joined(separator: "&")
    }

    /// A legacy Dynamic Link's query.
    static func dynamicQuery(_ random: inout SeededRandom) -> String {
        var pairs = ["link=" + ActionLinkEncoder.percentEncode(pick(["https://example.com/product/42", "https://evil.example.net/", "x"], &random))]
        for (name, values) in [
            ("apn", ["com.example.mail", "com.other"]), ("ibi", ["com.example.shop", "com.other"]), ("efr", ["1", "0"]),
            ("afl", ["https://example.com/android", "https://evil.example.net/"]), ("ofl", ["https://example.com/desktop"]),
            ("isi", ["1234567890", "bad"]), ("st", ["A <b>title</b>"]), ("sd", ["Words & more"]),
        ] where maybe(&random) {
            pairs.append(name + "=" + ActionLinkEncoder.percentEncode(pick(values, &random)))
        }
        return pairs.joined(separator: "&")
    }

    /// A link query of either kind, and what a short link stores.
    static func linkQuery(_ random: inout SeededRandom) -> String {
        if maybe(&random) { return dynamicQuery(&random) }
        return "link=" + ActionLinkEncoder.percentEncode("https://links.example.com/__/auth/action?" + actionQuery(&random))
    }

    struct GeneratedRequest {
        var path: String
        var method: HTTPRequest.Method
        var headers: HTTPFields
    }

    static let shortLinkCount = 12

    static func requests(count: Int, seed: UInt64) -> (requests: [GeneratedRequest], shortLinks: [(String, String)]) {
        var random = SeededRandom(seed: seed)  // the same requests every run: a failure replays
        let shortLinks = (0..<shortLinkCount).map { ("Gen\($0)", linkQuery(&random)) }
        var requests: [GeneratedRequest] = []
        for _ in 0..<count {
            var path =
                switch random.next() % 5 {
                case 0: "/__/auth/action?" + actionQuery(&random)
                case 1: "/__/auth/links?link=" + ActionLinkEncoder.percentEncode("https://links.example.com/__/auth/action?" + actionQuery(&random))
                case 2: "/?" + dynamicQuery(&random)
                case 3: "/" + pick(shortLinks, &random).0
                default: pick(["/open/item?", "/__/auth/links?", "/nothing?"], &random) + linkQuery(&random)
                }
            if random.next() % 12 == 0 { path = pick(["/?utm_source=mail", "/", "/__/auth/action", "/__/auth/links?foo=1"], &random) }
            if random.next() % 8 == 0 { path += (path.contains("?") ? "&" : "?") + pick(["d=1", "web=1", "efr=1"], &random) }
            var headers: HTTPFields = [.userAgent: pick(userAgents, &random)]
            if let language = pick(acceptLanguages, &random) { headers[.acceptLanguage] = language }
            requests.append(GeneratedRequest(path: path, method: random.next() % 5 == 0 ? .head : .get, headers: headers))
        }
        // GETs first: a HEAD (any method but GET) hands the rest of its connection to NIO's decoder,
        // so this order tries the byte reader on the GETs and the decoded path on the HEADs.
        return (requests.filter { $0.method == .get } + requests.filter { $0.method != .get }, shortLinks)
    }

    /// `text` without hand-off tokens and the forms' tokens (they carry the second they were made in).
    static func withoutFormTokens(_ text: String) -> String {
        Fixtures.withoutHandoffTokens(text).replacing(/name="(t|form)" value="[^"]*"/) { "name=\"\($0.output.1)\" value=\"TOKEN\"" }
    }

    struct Answer: Equatable, CustomStringConvertible {
        var status: HTTPResponse.Status
        var headers: [String: String]
        var body: String
        var description: String { "\(status.code) \(headers) \(body.prefix(300))" }
    }

    static func services(shortLinks: [(String, String)]) async throws -> LinkDomainServices {
        var configuration = try Fixtures.load(Fixtures.multiAppJSON)
        configuration.storage = .sqlite(path: FileManager.default.temporaryDirectory.appendingPathComponent("linkdomain-\(UUID().uuidString).sqlite").path)
        configuration.formSecret = "the same forms from both services"
        let services = try await LinkDomainServices.make(configuration: configuration, logger: Logger(label: "test"))
        for (code, type) in liveCodes + [("Expired0", .passwordReset)] {
            try await Fixtures.insertCode(
                code, type: type, newEmail: type == .verifyAndChangeEmail || type == .recoverEmail ? "bea@example.com" : nil,
                expired: code == "Expired0", into: services)
        }
        for (suffix, query) in shortLinks {
            try await services.linkStore.insertShortLink(ShortLinkRecord(suffix: suffix, longLinkQuery: query, createdAt: 1, origin: .import))
        }
        return services
    }

    /// Each request's answer, and each short link's counted events, from one transport.
    static func run(_ mode: TestingSetup, requests: [GeneratedRequest], shortLinks: [(String, String)]) async throws
        -> (answers: [Answer], events: [String: [LinkEventCount]])
    {
        let services = try await services(shortLinks: shortLinks)
        let application = LinkDomainApplication.build(services, logger: Logger(label: "test"))
        let answers = try await application.test(mode) { client in
            // Resolved once first, by a crawler (which counts nothing), so the event loop has every short link at hand.
            for (suffix, _) in shortLinks {
                _ = try await client.execute(uri: "/\(suffix)", method: .get, headers: [.userAgent: Self.userAgents[5]]) { $0.status }
            }
            var answers: [Answer] = []
            for request in requests {
                answers.append(
                    try await client.execute(uri: request.path, method: request.method, headers: request.headers) { response in
                        var headers: [String: String] = [:]
                        for field in response.headers where field.name != .date && field.name != .contentLength {
                            headers[field.name.canonicalName] = field.value
                        }
                        return Answer(status: response.status, headers: headers, body: withoutFormTokens(String(buffer: response.body)))
                    })
            }
            return answers
        }
        await services.linkEvents.flush()
        var events: [String: [LinkEventCount]] = [:]
        for (suffix, _) in shortLinks { events[suffix] = try await services.linkStore.eventCounts(suffix: suffix, fromDay: 0) }
        return (answers, events)
    }

    @Test("generated links and visitors: the event loop and the router give the same status, headers, body and events", arguments: [1, 2, 3] as [UInt64])
    func sameAnswers(seed: UInt64) async throws {
        let (requests, shortLinks) = Self.requests(count: 120, seed: seed)
        let live = try await Self.run(.live, requests: requests, shortLinks: shortLinks)
        let routed = try await Self.run(.router, requests: requests, shortLinks: shortLinks)
        for (index, request) in requests.enumerated() {
            #expect(live.answers[index] == routed.answers[index], "\(request.method) \(request.path) \(request.headers)")
        }
        #expect(live.events == routed.events)
        // Not a comparison of two routers: clicks were counted, and the statuses vary.
        #expect(live.events.values.contains { !$0.isEmpty })
        #expect(Set(live.answers.map(\.status.code)).isSuperset(of: [200, 302, 400]))
        // Live codes' forms among them, which the event loop answers when the code is at hand.
        #expect(live.answers.contains { $0.body.contains("name=\"form\" value=\"TOKEN\"") })
    }

    @Test("the event loop answers most generated requests itself, each exactly as the router does")
    func eventLoopAnswers() async throws {
        let (requests, shortLinks) = Self.requests(count: 200, seed: 7)
        let services = try await Self.services(shortLinks: shortLinks)
        for (suffix, _) in shortLinks { _ = try await services.linkStore.shortLink(suffix: suffix) }
        let routed = try await Self.run(.router, requests: requests, shortLinks: shortLinks).answers
        var answeredHere = 0
        var formsHere = 0
        for (index, request) in requests.enumerated() {
            let target = request.path
            let mark = target.firstIndex(of: "?")
            let path = target[..<(mark ?? target.endIndex)]
            guard let (kind, _) = services.immediate.match(path),
                let answer = services.immediate.answer(
                    to: kind, method: request.method, path: path, query: mark.map { target[target.index(after: $0)...] },
                    headers: ImmediateResponder.RequestHeaders(request.headers), peer: { "192.0.2.1" },
                    logger: Logger(label: "test"))
            else { continue }
            answeredHere += 1
            if answer.response.body.map({ String(buffer: $0) })?.contains("name=\"form\"") == true { formsHere += 1 }
            let response = answer.response
            let expected = routed[index]
            #expect(response.status == expected.status && response.headers[.location] == expected.headers["location"], "\(target)")
            #expect(request.method == .head || Self.withoutFormTokens(response.body.map { String(buffer: $0) } ?? "") == expected.body, "\(target)")
        }
        // Only forms whose code is not live (a backend check says why) and the links of other paths are the router's.
        #expect(answeredHere > requests.count / 2, "\(answeredHere) of \(requests.count)")
        #expect(formsHere > 0)
        #expect(Set(routed.map(\.status.code)).isSuperset(of: [200, 302, 303, 400]))
    }
}
