import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
@testable import LinkDomain
@testable import LinkDomainCore
@testable import LinkDomainStorage
import Logging
import NIOFoundationEssentialsCompat
import Synchronization
import Testing

@Suite("The mail queue's API")
struct MailQueueAPITests {
    @Test("failed mails listed masked for an admin key only; retried; discarded; gone after")
    func mailQueue() async throws {
        let services = try await ConsoleTests.services()
        let base = Int64(7_000_000_000_000)
        for index in 0..<3 {
            try await services.admin.enqueue(
                QueuedMail(
                    id: "m\(index)", sender: "noreply@example.com", recipient: "ann\(index)@example.com",
                    message: "Subject: x\r\n\r\nbody", kind: "reset-password", queuedAt: base + Int64(index),
                    language: "it"))
            try await services.admin.markFailed(id: "m\(index)", reason: "550 5.1.1 no such mailbox", now: base + 10)
        }
        try await LinkDomainApplication.build(services, logger: Logger(label: "test")).test(.router) { client in
            let admin: HTTPFields = [.authorization: "Bearer \(Fixtures.adminKey)"]
            func call(_ method: HTTPRequest.Method, _ path: String, _ headers: HTTPFields) async throws -> (HTTPResponse.Status, [String: Any]) {
                try await client.execute(uri: path, method: method, headers: headers) { response in
                    (response.status, (try? JSONSerialization.jsonObject(with: Data(buffer: response.body)) as? [String: Any]) ?? [:])
                }
            }
            #expect(try await call(.get, "/v1/mail", [:]).0 == .forbidden)
            #expect(try await call(.get, "/v1/mail", [.authorization: "Bearer owner"]).0 == .forbidden)
            let (status, page) = try await call(.get, "/v1/mail?state=failed&pageSize=2", admin)
            let mails = try #require(page["mails"] as? [[String: Any]])
            #expect(status == .ok && mails.compactMap { $0["id"] as? String } == ["m2", "m1"])
            #expect(mails.first?["recipient"] as? String == "a•••@example.com" && mails.first?["language"] as? String == "it")
            #expect(mails.first?["lastError"] as? String == "550 5.1.1 no such mailbox" && mails.first?["message"] == nil)
            let token = try #require(page["nextPageToken"] as? String)
            let (_, rest) = try await call(.get, "/v1/mail?state=failed&pageSize=2&pageToken=\(token)", admin)
            #expect((rest["mails"] as? [[String: Any]])?.compactMap { $0["id"] as? String } == ["m0"])
            let (_, shown) = try await call(.get, "/v1/mail?state=failed&showAddresses=true", admin)
            #expect((shown["mails"] as? [[String: Any]])?.first?["recipient"] as? String == "ann2@example.com")

            #expect(try await call(.post, "/v1/mail/m1:retry", admin).0 == .ok)
            #expect(try await services.admin.state(id: "m1")?.state == .queued)
            #expect(try await call(.delete, "/v1/mail/m0", admin).0 == .ok)
            #expect(try await services.admin.state(id: "m0") == nil)
            let (again, error) = try await call(.delete, "/v1/mail/m0", admin)
            #expect(again == .notFound && (error["error"] as? [String: Any])?["status"] as? String == "NOT_FOUND")
            #expect(try await call(.post, "/v1/mail/m2:explode", admin).0 == .notFound)
        }
    }

    @Test("I never got the mail: a recipient's mails in every state by part of the address in any case, with the next attempt; audited")
    func searchByRecipient() async throws {
        let services = try await ConsoleTests.services()
        let base = Int64(7_100_000_000_000)
        for (index, recipient) in ["Bea.Smith@example.com", "bea.smith@example.com", "carl@example.com"].enumerated() {
            try await services.admin.enqueue(
                QueuedMail(
                    id: "s\(index)", sender: "noreply@example.com", recipient: recipient, message: "Subject: x\r\n\r\nbody", kind: "sign-in",
                    queuedAt: base + Int64(index), language: "en"))
        }
        try await services.admin.markFailed(id: "s0", reason: "550 5.1.1 no such mailbox", now: base + 10)
        let lines = Mutex<[String]>([])
        let logger = Logger(label: "test") { label in
            LineLogHandler(format: .text, label: label, level: .info) { line in lines.withLock { $0.append(line) } }
        }
        try await LinkDomainApplication.build(services, logger: logger).test(.router) { client in
            let admin: HTTPFields = [.authorization: "Bearer \(Fixtures.adminKey)"]
            func mails(_ query: String) async throws -> [[String: Any]] {
                try await client.execute(uri: "/v1/mail?\(query)", method: .get, headers: admin) { response in
                    #expect(response.status == .ok, "\(query)")
                    let body = try? JSONSerialization.jsonObject(with: Data(buffer: response.body)) as? [String: Any]
                    return body?["mails"] as? [[String: Any]] ?? []
                }
            }
            // Both of Bea's mails, the failed and the waiting one, newest first; Carl's is not hers.
            let found = try await mails("query=BEA.smith%40example.com")
            #expect(found.compactMap { $0["id"] as? String } == ["s1", "s0"])
            #expect(found.compactMap { $0["state"] as? String } == ["queued", "failed"])
            #expect(found.first?["nextAttemptTime"] as? String != nil && found.last?["nextAttemptTime"] == nil)
            #expect(found.first?["recipient"] as? String == "b•••@example.com")
            #expect(try await mails("query=smith&state=failed").compactMap { $0["id"] as? String } == ["s0"])
            #expect(try await mails("query=nobody%40example.com").isEmpty)
        }
        let logged = lines.withLock { $0.joined() }
        #expect(logged.contains("mail.searchRecipient") && !logged.lowercased().contains("bea.smith"))
    }
}
