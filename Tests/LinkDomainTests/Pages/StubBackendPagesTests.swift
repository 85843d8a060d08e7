import Foundation
import HTTPTypes
import HummingbirdTesting
@testable import LinkDomain
@testable import LinkDomainCore
@testable import LinkDomainStorage
import Logging
import Synchronization
import Testing

/// A backend that knows one code of each kind the embedded backend cannot issue, and records what is spent.
final class StubBackend: AuthBackend {
    let spent = Mutex<[String]>([])
    let codes: [String: CodeInfo]

    init(codes: [String: CodeInfo]) {
        self.codes = codes
    }

    func checkCode(_ code: String, context: BackendCallContext) async throws(BackendError) -> CodeInfo {
        guard let info = codes[code], !spent.withLock({ $0.contains(code) }) else { throw .rejected(BackendRefusal(.invalidOobCode)) }
        return info
    }

    func resetPassword(code: String, newPassword: String, context: BackendCallContext) async throws(BackendError) -> CodeInfo {
        try await applyCode(code, expecting: .passwordReset, context: context)
    }

    func applyCode(_ code: String, expecting requestType: OobRequestType, context: BackendCallContext) async throws(BackendError) -> CodeInfo {
        let info = try await checkCode(code, context: context)
        guard info.requestType == requestType else { throw .rejected(BackendRefusal(.invalidOobCode)) }
        spent.withLock { $0.append(code) }
        return info
    }

    func isReachable() async -> Bool { true }

    /// The test fixture's services, with pages answered by this backend and no embedded one.
    func services() async throws -> LinkDomainServices {
        let made = try await Fixtures.services()
        // Its forms are this backend's to check, through the router.
        var immediate = made.immediate
        immediate.modeForms = nil
        return LinkDomainServices(
            configuration: made.configuration, files: made.files, embeddedBackend: nil, authBackend: self, linkStore: made.linkStore, admin: made.admin,
            signOuts: made.signOuts, budgets: made.budgets,
            certificates: nil, clock: made.clock, renderer: made.renderer, favicon: made.favicon, script: made.script, immediate: immediate,
            formSecret: made.formSecret,
            pageChecks: made.pageChecks, linkEvents: made.linkEvents)
    }
}

@Suite("Pages for codes the embedded backend does not issue")
struct StubBackendPagesTests {
    @Test("revertSecondFactorAddition: the page says what will happen, the button spends the code once")
    func revertSecondFactor() async throws {
        let stub = StubBackend(codes: ["revert-1": CodeInfo(requestType: .revertSecondFactorAddition, email: "ada@example.com")])
        try await LinkDomainApplication.build(try await stub.services(), logger: Logger(label: "test")).test(.live) { client in
            let pages = BackendClient(client: client)
            let page = try await pages.page("/__/auth/action?mode=revertSecondFactorAddition&oobCode=revert-1&apiKey=k&lang=en")
            #expect(page.title == "Remove the new second sign-in step")
            #expect(page.html.contains("ada@example.com") && page.html.contains("Remove the second step"))
            #expect(stub.spent.withLock { $0.isEmpty })
            let done = try await pages.submit(page)
            #expect(done.title == "The second sign-in step has been removed")
            #expect(stub.spent.withLock { $0 } == ["revert-1"])
            #expect(try await pages.submit(page).title == "This link has already been used or is not valid")
        }
    }

    @Test("a code of another kind than the link's mode is refused, not applied")
    func modeMismatch() async throws {
        let stub = StubBackend(codes: ["reset-1": CodeInfo(requestType: .passwordReset, email: "ada@example.com")])
        try await LinkDomainApplication.build(try await stub.services(), logger: Logger(label: "test")).test(.live) { client in
            let page = try await BackendClient(client: client).page("/__/auth/action?mode=verifyEmail&oobCode=reset-1&apiKey=k")
            #expect(page.status == .badRequest)
            #expect(page.title == "This link has already been used or is not valid")
            #expect(stub.spent.withLock { $0.isEmpty })
        }
    }
}

@Suite("Backends refuse a code of another kind without spending it")
struct ExpectedKindTests {
    @Test("the embedded backend: a reset code applied as a verification is refused and stays usable")
    func embedded() async throws {
        let harness = BackendHarness()
        let services = try await LinkDomainServices.make(configuration: harness.configuration, clock: harness.clock, logger: Logger(label: "test"))
        let service = try #require(services.embeddedBackend?.service)
        _ = try await service.signUp(SignUpRequest(email: "kind@example.com", password: "123456"), CallContext())
        let sent = try await service.sendOobCode(
            SendOobCodeRequest(requestType: .passwordReset, email: "kind@example.com", returnOobLink: true), CallContext(isAdmin: true))
        let code = try #require(sent.oobCode)
        await #expect(throws: BackendError.rejected(BackendRefusal(.invalidOobCode, detail: "the code is for another action"))) {
            try await services.authBackend.applyCode(code, expecting: .verifyEmail, context: BackendCallContext())
        }
        #expect(try await services.authBackend.checkCode(code, context: BackendCallContext()).requestType == .passwordReset)
    }
}
