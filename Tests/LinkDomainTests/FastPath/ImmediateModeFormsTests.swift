import Foundation
import HTTPTypes
import Logging
@testable import LinkDomain
@testable import LinkDomainCore
@testable import LinkDomainStorage
import NIOCore
import Prometheus
import Testing

/// The event loop answers a form only when the code is live and at hand, within the client's page
/// checks; every other case is the router's, which says why.
@Suite("Email action forms on the event loop")
struct ImmediateModeFormsTests {
    static func forms(burst: Int = 100, trustedProxies: Set<String> = []) async throws -> (ImmediateModeForms, LinkMetrics) {
        let services = try await OneAnswerPropertyTests.services(shortLinks: [])
        let made = try #require(services.immediate.modeForms)
        let metrics = LinkMetrics()
        return (
            ImmediateModeForms(
                writer: made.writer, backend: made.backend, pageChecks: RateLimiter(perMinute: 1, burst: burst),
                trustedProxies: trustedProxies, metrics: metrics), metrics
        )
    }

    static let reset = ActionLink(mode: .resetPassword, oobCode: "LivePASSWORD_RESET", apiKey: "k")
    static let peer = "192.0.2.7"

    static func checksCounted(_ metrics: LinkMetrics) -> Bool {
        String(decoding: metrics.exposition(), as: UTF8.self).contains(#"linkdomain_backend_calls_total{operation="checkCode",outcome="ok"} 1"#)
    }

    @Test("a live code's form, with its token, counted as the backend's check")
    func liveCode() async throws {
        let (forms, metrics) = try await Self.forms()
        let form = try #require(forms.response(Self.reset, language: "en", query: nil, peer: Self.peer))
        #expect(form.status == .ok)
        let body = String(buffer: try #require(form.body))
        #expect(body.contains(#"name="newPassword""#) && body.contains(#"name="form" value=""#) && body.contains("ann@example.com"))
        #expect(Self.checksCounted(metrics))
    }

    @Test("expired, unknown and other kinds of codes, a refused password's return, a call without a peer: the router's")
    func routersToAnswer() async throws {
        let (forms, metrics) = try await Self.forms()
        for code in ["Expired0", "C1", "LiveVERIFY_EMAIL", String(repeating: "x", count: 100_000)] {
            #expect(forms.response(ActionLink(mode: .resetPassword, oobCode: code), language: "en", query: nil, peer: Self.peer) == nil, "\(code)")
        }
        #expect(forms.response(Self.reset, language: "en", query: "mode=resetPassword&\(FormRefusal.parameter)=weak", peer: Self.peer) == nil)
        #expect(forms.response(Self.reset, language: "en", query: nil, peer: nil) == nil)
        #expect(!Self.checksCounted(metrics))
    }

    @Test("a trusted proxy's requests are the router's: the client's address is in X-Forwarded-For")
    func trustedProxy() async throws {
        let (forms, _) = try await Self.forms(trustedProxies: [Self.peer])
        #expect(forms.response(Self.reset, language: "en", query: nil, peer: Self.peer) == nil)
        #expect(forms.response(Self.reset, language: "en", query: nil, peer: "192.0.2.8") != nil)
    }

    @Test("each form takes one of the client's page checks; with none left the router answers 429")
    func pageChecks() async throws {
        let (forms, _) = try await Self.forms(burst: 2)
        // Codes that are not live take none here: the router takes the one its check needs.
        #expect(forms.response(ActionLink(mode: .resetPassword, oobCode: "C1"), language: "en", query: nil, peer: Self.peer) == nil)
        #expect(forms.response(Self.reset, language: "en", query: nil, peer: Self.peer) != nil)
        #expect(forms.response(Self.reset, language: "en", query: nil, peer: Self.peer) != nil)
        #expect(forms.response(Self.reset, language: "en", query: nil, peer: Self.peer) == nil)
        #expect(forms.pageChecks.take(Self.peer) != nil)
        #expect(forms.response(Self.reset, language: "en", query: nil, peer: "192.0.2.8") != nil)
    }

    @Test("a live code whose answer is the router's after all gives its page check back, for the router's own")
    func passedOnGivesBack() async throws {
        let services = try await OneAnswerPropertyTests.services(shortLinks: [])
        var responder = services.immediate
        let (forms, metrics) = try await Self.forms(burst: 1)
        responder.modeForms = forms
        func answer(_ code: String) -> ImmediateResponder.Answer? {
            responder.answer(
                to: .link, method: .get, path: "/__/auth/action", query: Substring("mode=resetPassword&oobCode=\(code)&apiKey=k"),
                headers: .init(userAgent: ImmediateResponseTests.desktop), peer: { Self.peer }, logger: Logger(label: "test"))
        }
        // Live, but for another action: the router says so.
        #expect(answer("LiveVERIFY_EMAIL") == nil)
        #expect(!Self.checksCounted(metrics))
        #expect(answer("LivePASSWORD_RESET") != nil)
        #expect(Self.checksCounted(metrics))
        #expect(answer("LivePASSWORD_RESET") == nil)
    }
}

extension ImmediateModeForms {
    /// The form as the event loop writes it: checked at hand (its page check taken), then written.
    fileprivate func response(_ link: ActionLink, language: String, query: Substring?, peer: String?) -> ImmediateResponse? {
        guard let checked = check(link, query: query, peer: peer) else { return nil }
        guard let form = writer.response(link, info: checked.info, language: language) else {
            passedOn(checked.client)
            return nil
        }
        answered(checked: checked.checked)
        return form
    }
}
