import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import Testing

@testable import LinkDomain
@testable import LinkDomainCore
@testable import LinkDomainStorage

/// A LinkDomain whose pages use an Identity Toolkit backend over HTTP. The backend here is another
/// LinkDomain's embedded backend, which speaks the same API as the Auth emulator.
@Suite("Pages over an Identity Toolkit backend reached by HTTP")
struct IdentityToolkitClientTests {
    /// - Parameter timeoutSeconds: the pages' backend deadline; generous unless a test is about it,
    ///   since a busy test machine (every suite at once, password hashing on both servers) is slow.
    static func pagesServer<Value>(
        backendURL: String, timeoutSeconds: Int = 60,
        _ test: @Sendable (BackendClient) async throws -> Value
    ) async throws -> Value {
        var configuration = BackendHarness().configuration
        configuration.backend.kind = .emulator(url: backendURL)
        configuration.backend.timeoutSeconds = timeoutSeconds
        let services = try await LinkDomainServices.make(configuration: configuration, logger: Logger(label: "test"))
        return try await LinkDomainApplication.build(services, logger: Logger(label: "test")).test(.live) { client in
            try await test(BackendClient(client: client))
        }
    }

    @Test("reset a password through the HTTP client: check, wrong confirmation, weak password, success, reuse")
    func resetOverHTTP() async throws {
        try await BackendHarness().run { backend in
            let port = try #require(backend.client.port)
            _ = try await backend.signUp("ada@example.com", password: "old-password")
            let link = try await ActionPagesTests.mailedLink(backend, "PASSWORD_RESET", email: "ada@example.com")
            try await Self.pagesServer(backendURL: "http://127.0.0.1:\(port)") { pages in
                // The pages server embeds no backend API of its own.
                #expect(try await pages.call("accounts:signUp", ["email": "x@example.com", "password": "123456"]).status == .notFound)
                let page = try await pages.page(ActionPagesTests.path(link))
                #expect(page.title == "Choose a new password")
                #expect(page.html.contains("ada@example.com"))
                let weak = try await pages.submit(page, ["newPassword": "abc", "confirmPassword": "abc"])
                #expect(weak.status == .ok && weak.html.contains("too weak"))  // the backend's refusal, back on the form
                let done = try await pages.submit(page, ["newPassword": "new-password", "confirmPassword": "new-password"])
                #expect(done.title == "Your password has been changed")
                let reused = try await pages.page(ActionPagesTests.path(link))
                #expect(reused.title == "This link has already been used or is not valid")
                let ready = try await pages.get("/readyz")
                #expect(ready.status == .ok)
            }
            let signIn = try await backend.call("accounts:signInWithPassword", ["email": "ada@example.com", "password": "new-password"])
            #expect(signIn.status == .ok)
        }
    }

    @Test("verify an email through the HTTP client")
    func verifyOverHTTP() async throws {
        try await BackendHarness().run { backend in
            let port = try #require(backend.client.port)
            let user = try await backend.signUp("ada@example.com")
            let link = try await ActionPagesTests.mailedLink(backend, "VERIFY_EMAIL", email: "ada@example.com")
            try await Self.pagesServer(backendURL: "http://127.0.0.1:\(port)") { pages in
                let page = try await pages.page(ActionPagesTests.path(link))
                #expect(try await pages.submit(page).title == "Your email address has been verified")
            }
            let lookup = try await backend.admin("accounts:lookup", ["localId": [user.string("localId")!]])
            #expect((lookup["users"] as? [[String: Any]])?.first?["emailVerified"] as? Bool == true)
        }
    }

    @Test("a backend that cannot be reached: a 503 page, and /readyz fails")
    func unreachable() async throws {
        try await Self.pagesServer(backendURL: "http://127.0.0.1:1") { pages in
            let page = try await pages.page("/__/auth/action?mode=resetPassword&oobCode=abc&apiKey=k")
            #expect(page.status == .serviceUnavailable)
            #expect(page.title == "The sign-in service cannot be reached")
            let ready = try await pages.client.execute(uri: "/readyz", method: .get) { $0 }
            #expect(ready.status == .serviceUnavailable)
            #expect(String(buffer: ready.body) == "not ready: backend\n")
        }
    }

    @Test("a backend that answers garbage: 502; one that hangs: 504")
    func faultyBackends() async throws {
        let router = Router()
        router.post("/garbage/identitytoolkit.googleapis.com/v1/**") { _, _ in "<html>proxy error</html>" }
        router.post("/slow/identitytoolkit.googleapis.com/v1/**") { _, _ -> String in
            try await Task.sleep(for: .seconds(5))
            return "{}"
        }
        try await Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0))).test(.live) { fake in
            let port = try #require(fake.port)
            try await Self.pagesServer(backendURL: "http://127.0.0.1:\(port)/garbage") { pages in
                let page = try await pages.page("/__/auth/action?mode=verifyEmail&oobCode=abc&apiKey=k")
                #expect(page.status == .badGateway)
                #expect(page.title == "The sign-in service gave a wrong answer")
                // Not a dead end: "Try again" reloads the link's own page.
                #expect(page.href("button")?.contains("/__/auth/action?apiKey=k&mode=verifyEmail&oobCode=abc") == true, "\(page.href("button") ?? "no button")")
                #expect(page.html.contains(">Try again</a>"))
            }
            try await Self.pagesServer(backendURL: "http://127.0.0.1:\(port)/slow", timeoutSeconds: 1) { pages in
                let page = try await pages.page("/__/auth/action?mode=verifyEmail&oobCode=abc&apiKey=k")
                #expect(page.status == .gatewayTimeout)
                #expect(page.title == "The sign-in service did not answer in time")
            }
        }
    }
}
