import Foundation
import Testing

@testable import LinkDomainCore
@testable import LinkDomainStorage

/// The event loop's own read of a code (SQLite's interface, columns by position) gives what the
/// pool's read gives of the fields a page needs, field for field.
@Suite("Storage: a code read without waiting")
struct SQLiteReadsWithoutWaitingTests {
    static func store() throws -> SQLiteStore {
        try SQLiteStore(path: FileManager.default.temporaryDirectory.appendingPathComponent("codes-\(UUID().uuidString).sqlite").path)
    }

    @Test("every field and every request type as stored, absent values absent, whether an app asked kept as stored")
    func fields() async throws {
        let store = try Self.store()
        var records: [OobCodeRecord] = []
        for (index, requestType) in OobRequestType.allCases.enumerated() {
            records.append(
                OobCodeRecord(
                    code: "code-\(index)", projectID: "p-\(index)", tenantID: index.isMultiple(of: 2) ? "" : "tenant-ü",
                    requestType: requestType, email: "a\(index)@example.com", newEmail: index == 3 ? "new@example.com" : nil,
                    localID: index == 2 ? nil : "u\(index)", link: "https://links.example.com/__/auth/action?oobCode=code-\(index)",
                    createdAt: 1_700_000_000_000 + Int64(index), expiresAt: Int64.max - Int64(index),
                    askedByApp: [nil, true, false][index % 3]))
        }
        for record in records { try await store.insertCode(record) }
        for record in records {
            #expect(store.codeWithoutWaiting(record.code) == OobCodeSummary(record))
            #expect(try await store.code(record.code) == record)
        }
    }

    @Test("a code not stored, spent, or far too long to be one reads as none")
    func absent() async throws {
        let store = try Self.store()
        let record = OobCodeRecord(
            code: "live", projectID: "p", tenantID: "", requestType: .passwordReset, email: "a@example.com", newEmail: nil,
            localID: "u1", link: "https://links.example.com/x", createdAt: 1, expiresAt: 1000)
        try await store.insertCode(record)
        #expect(store.codeWithoutWaiting("live") == OobCodeSummary(record))
        #expect(store.codeWithoutWaiting("never") == nil)
        #expect(store.codeWithoutWaiting(String(repeating: "x", count: 100_000)) == nil)
        #expect(try await store.commit(AuthWrites(spending: .init(code: "live", now: 500))) == .committed)
        #expect(store.codeWithoutWaiting("live") == nil)
        // The statement is reused: a read after a miss and after a spent code still finds a code.
        try await store.insertCode(
            OobCodeRecord(
                code: "again", projectID: "p", tenantID: "", requestType: .emailSignIn, email: "a@example.com", newEmail: nil,
                localID: nil, link: "https://links.example.com/y", createdAt: 2, expiresAt: 2000, askedByApp: true))
        #expect(store.codeWithoutWaiting("again")?.askedByApp == true)
    }
}
