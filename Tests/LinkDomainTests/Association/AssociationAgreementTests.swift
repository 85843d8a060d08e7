import Foundation
import Testing

@testable import LinkDomain
@testable import LinkDomainCore
@testable import LinkDomainStorage

@Suite("The Apple and Android files claim the same paths")
struct AssociationAgreementTests {
    static let paths = [
        "/__/auth/links", "/__/auth/action", "/__/auth/done", "/__/auth/new-link", "/__/handoff/abc", "/__/static/styles.css",
        "/abcd", "/AbCdEfGhIjKlMnOpQ", "/", "/some/old/path", "/v1/shortLinks", "/healthz", "/metrics", "/.well-known/assetlinks.json",
        "/identitytoolkit.googleapis.com/v1/accounts:signUp", "/emulator/action", "/favicon.ico",
    ]

    @Test("with and without short links, every path is claimed by both files or by neither", arguments: [false, true])
    func agree(shortLinks: Bool) throws {
        var configuration = try Fixtures.load(Fixtures.multiAppJSON)
        configuration.shortLinks.apiKeys = shortLinks ? ["a-short-link-key-0123456789"] : []
        let files = try AssociationFiles(configuration: configuration)
        let apple = try JSONDecoder().decode(JSONValue.self, from: Data(files.apple.bytes))
        let android = try JSONDecoder().decode(JSONValue.self, from: Data(files.android.bytes))
        guard case .object(let root) = apple, case .object(let links)? = root["applinks"], case .list(let details)? = links["details"],
            case .object(let mail)? = details.first,
            case .list(let statements) = android, case .object(let statement)? = statements.first,
            case .object(let extensions)? = statement["relation_extensions"],
            case .object(let handleAll)? = extensions["delegate_permission/common.handle_all_urls"],
            let rules = handleAll["dynamic_app_link_components"]
        else {
            Issue.record("the files lack their rules")
            return
        }
        for path in Self.paths {
            let byApple = AppleAssociationPatterns.handles(path, entry: mail)
            let byAndroid = AppleAssociationPatterns.handles(path, entry: ["components": rules])
            #expect(byApple == byAndroid, "\(path)")
        }
        // What each claims: the email paths always, short links only when they are on, never the service's own pages.
        #expect(AppleAssociationPatterns.handles("/__/auth/links", entry: mail))
        #expect(AppleAssociationPatterns.handles("/abcd", entry: mail) == shortLinks)
        for own in ["/__/handoff/abc", "/__/auth/done", "/v1/shortLinks", "/healthz"] { #expect(!AppleAssociationPatterns.handles(own, entry: mail), "\(own)") }
    }
}
