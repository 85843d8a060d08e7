import Testing

@testable import LinkDomain
@testable import LinkDomainCore

/// A thread's kept visitors answer what classifying the same user agent and hint answers, apart
/// by hint, and stay bounded.
@Suite("Event loop: visitors classified once per thread")
struct KnownVisitorsTests {
    static let reduced = "Mozilla/5.0 (Linux; K) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Mobile Safari/537.36"

    @Test("the classifier's visitor for every user agent of the table, asked twice, with and without hints")
    func sameAsClassifying() {
        let known = KnownVisitors()
        let hints: [String?] = [nil, "\"Android\"", "\"Windows\"", " \"iOS\" ", ""]
        for _ in 0..<2 {
            for (agent, _, _) in PlatformClassifierTests.cases + [(Self.reduced, .android, nil)] {
                for hint in hints {
                    let expected = PlatformClassifier.classify(userAgent: agent, platformHint: hint)
                    #expect(known.visitor(userAgent: agent, platformHint: hint) == expected, "\(agent) \(hint ?? "-")")
                }
            }
        }
        #expect(known.visitor(userAgent: nil, platformHint: nil) == Visitor(platform: .bot))
        // The same reduced user agent is a phone or a computer by its hint alone.
        #expect(known.visitor(userAgent: Self.reduced, platformHint: "\"Android\"").platform == .android)
        #expect(known.visitor(userAgent: Self.reduced, platformHint: "\"Windows\"").platform == .desktop)
    }

    @Test("the last visitor answers only the same user agent and hint in a row")
    func lastInARow() {
        let known = KnownVisitors()
        let iPhone = PlatformClassifierTests.cases[0].0
        let asked: [(String?, String?, Platform)] = [
            (Self.reduced, "\"Android\"", .android), (Self.reduced, "\"Android\"", .android), (Self.reduced, "\"Windows\"", .desktop),
            (Self.reduced, "\"Windows\"", .desktop), (Self.reduced, "\"Android\"", .android), (iPhone, nil, .iOS), (iPhone, nil, .iOS),
            (nil, nil, .bot), (nil, nil, .bot), (iPhone, "", .iOS), (iPhone, nil, .iOS),
        ]
        for (agent, hint, platform) in asked {
            #expect(known.visitor(userAgent: agent, platformHint: hint).platform == platform, "\(agent ?? "-") \(hint ?? "-")")
        }
    }

    @Test("the last visitor found from a connection's bytes only for the same bytes of both fields, an empty hint not an absent one")
    func lastFromBytes() {
        let known = KnownVisitors()
        let iPhone = PlatformClassifierTests.cases[0].0
        func last(_ agent: String?, _ hint: String?) -> Visitor? {
            let agentBytes = agent.map { Array($0.utf8) }
            let hintBytes = hint.map { Array($0.utf8) }
            func raw(_ bytes: [UInt8]?, _ body: (UnsafeRawBufferPointer?) -> Visitor?) -> Visitor? {
                guard let bytes else { return body(nil) }
                return bytes.withUnsafeBytes { body($0) }
            }
            return raw(agentBytes) { agent in raw(hintBytes) { hint in known.lastVisitor(userAgent: agent, platformHint: hint) } }
        }
        #expect(last(iPhone, nil) == nil)
        for (agent, hint) in [(iPhone, nil), (Self.reduced, "\"Android\""), (Self.reduced, ""), (nil, nil)] as [(String?, String?)] {
            let visitor = known.visitor(userAgent: agent, platformHint: hint)
            #expect(last(agent, hint) == visitor)
            #expect(last(agent.map { $0 + " " } ?? "", hint) == nil)
            #expect(last(agent, hint == nil ? "" : nil) == nil)
            #expect(last(agent, (hint ?? "") + "x") == nil)
        }
    }

    @Test("a thread keeps a bounded number, and no user agent longer than any browser's")
    func bounded() {
        let known = KnownVisitors()
        for index in 0..<KnownVisitors.capacity { _ = known.visitor(userAgent: "agent/\(index)", platformHint: nil) }
        #expect(known.count == KnownVisitors.capacity)
        _ = known.visitor(userAgent: "one more", platformHint: nil)
        #expect(known.count == 1)
        let long = "Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) " + String(repeating: "x", count: KnownVisitors.longestKept)
        #expect(known.visitor(userAgent: long, platformHint: nil).platform == .iOS)
        #expect(known.count == 1)
    }
}
