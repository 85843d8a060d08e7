import Foundation
import HTTPTypes
@testable import LinkDomain
@testable import LinkDomainCore
import LinkDomainExercises
@testable import LinkDomainStorage
import Testing

@Suite("Send me a new link: expired and used links lead on")
struct NewLinkTests {
    /// The reset codes the backend holds for `email`.
    static func codes(_ client: BackendClient, for email: String, mode: String = "resetPassword") async throws -> Int {
        try await client.oobCodes().filter { $0["email"] as? String == email && ($0["oobLink"] as? String)?.contains("mode=\(mode)") == true }.count
    }

    @Test("an expired reset link's page asks for the address and mails a new link there; the answer is the same for any address")
    func expiredReset() async throws {
        let harness = BackendHarness()
        try await harness.run { client in
            _ = try await client.signUp("ada@example.com")
            let link = try await ActionPagesTests.mailedLink(
                client, "PASSWORD_RESET", email: "ada@example.com",
                extra: ["continueUrl": "https://app.example.com/after"])
            harness.clock.advance(seconds: 3601)
            let expired = try await client.page(ActionPagesTests.path(link))
            #expect(expired.status == .gone && expired.html.contains("<form method=\"post\" action=\"/__/auth/new-link\">"))
            #expect(expired.html.contains("autocomplete=\"email\"") && expired.html.contains(">Send me a new link</button>"))
            #expect(expired.href("button secondary") == "https://app.example.com/after")  // the way back is still there, second
            let fields = expired.hiddenFields
            #expect(fields["mode"] == "resetPassword" && fields["continueUrl"] == "https://app.example.com/after" && fields["t"] != nil)
            #expect(fields["oobCode"] == nil)  // the old code is not carried anywhere

            let before = try await Self.codes(client, for: "ada@example.com")
            var answers: [Page] = []
            for email in ["ada@example.com", "nobody@example.com", "not an address"] {
                var posted = fields
                posted["email"] = email
                answers.append(try await client.postForm(RoutePaths.newLink, posted))
            }
            // One answer for an account, no account and nonsense: 303 to the same page.
            #expect(answers.allSatisfy { $0.status == .seeOther && $0.headers[.location] == "/__/auth/new-link?lang=en" })
            let sent = try await client.followed(answers[0])
            #expect(sent.status == .ok && sent.title == "Check your email" && sent.html.contains("If this address has an account"))
            #expect(try await Self.codes(client, for: "ada@example.com") == before + 1)
            #expect(try await Self.codes(client, for: "nobody@example.com") == 0)
            let newest = try #require(try await client.oobCodes().last?["oobLink"] as? String)
            #expect(newest.contains("continueUrl=https%3A%2F%2Fapp.example.com%2Fafter"))  // the new link leads where the old one did
        }
    }

    @Test("the form is refused from another site, with a token for another mode, or for a mode nobody asks for themselves")
    func refusals() async throws {
        let harness = BackendHarness()
        try await harness.run { client in
            _ = try await client.signUp("ada@example.com")
            let used = try await client.page("/__/auth/action?mode=verifyEmail&oobCode=not-a-code&apiKey=k")
            var fields = used.hiddenFields
            #expect(fields["mode"] == "verifyEmail" && used.html.contains("Send me a new link"))
            fields["email"] = "ada@example.com"
            #expect(try await client.postForm(RoutePaths.newLink, fields, site: "cross-site").title == "This page has expired")
            var otherMode = fields
            otherMode["mode"] = "resetPassword"
            #expect(try await client.postForm(RoutePaths.newLink, otherMode).title == "This page has expired")
            let recover = try await client.page("/__/auth/action?mode=recoverEmail&oobCode=not-a-code&apiKey=k")
            #expect(recover.status == .badRequest && !recover.html.contains("new-link"))
            #expect(try await Self.codes(client, for: "ada@example.com", mode: "verifyEmail") == 0)
            #expect(try await client.postForm(RoutePaths.newLink, fields).status == .seeOther)
            #expect(try await Self.codes(client, for: "ada@example.com", mode: "verifyEmail") == 1)
        }
    }
}
