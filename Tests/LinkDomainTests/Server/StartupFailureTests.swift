import Foundation
import NIOCore
import Testing

@testable import LinkDomain
@testable import LinkDomainCore
@testable import LinkDomainStorage

@Suite("Start-up failures")
struct StartupFailureTests {
    let configuration = {
        var configuration = LinkDomainConfiguration(publicBaseURL: "http://127.0.0.1:8080")
        configuration.storage = .sqlite(path: "/nonexistent/dir/db.sqlite")
        return configuration
    }()

    @Test("each is one plain sentence naming the key and what to do")
    func sentences() throws {
        let inUse = StartupFailure.describe(IOError(errnoCode: EADDRINUSE, reason: "bind"), configuration: configuration)
        #expect(inUse.contains("127.0.0.1:8080") && inUse.contains("server.port"))
        let denied = StartupFailure.describe(IOError(errnoCode: EACCES, reason: "bind"), configuration: configuration)
        #expect(denied.contains("CAP_NET_BIND_SERVICE"))
        do {
            _ = try SQLiteStore(path: "/proc/linkdomain-cannot-write/db.sqlite")
            Issue.record("a database under /proc opened")
        } catch {
            let sentence = StartupFailure.describe(error, configuration: configuration)
            #expect(sentence.contains("storage.sqlitePath") && sentence.contains("/proc/linkdomain-cannot-write"))
            #expect(!sentence.contains("NSCocoaErrorDomain") && !sentence.contains("\n"))
        }
        let pages = StartupFailure.describe(PageAssets.Problem(description: "/srv/pages lacks locales/en.json"), configuration: configuration)
        #expect(pages.contains("publicDirectory") && pages.contains("locales/en.json"))
    }
}
