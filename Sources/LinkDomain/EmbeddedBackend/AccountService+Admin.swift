import Foundation
import HTTPTypes
import LinkDomainCore
import LinkDomainStorage

/// The admin surface beyond single accounts: listing (`batchGet`), `batchDelete`, `query`, and the
/// Firebase Auth emulator's own test hooks (reset, project configuration).
extension AccountService {
    /// `GET accounts:batchGet?maxResults=N&nextPageToken=ID`: accounts in ID order after the token.
    func batchGet(_ request: BatchGetRequest, _ context: CallContext) async throws -> DownloadAccountResponse {
        guard context.isAdmin else { throw IdentityToolkitError.insufficientPermission }
        let requested = try request.maxResults.within(1...1000, else: IdentityToolkitError(.invalidArgument, detail: "maxResults must be 1 to 1000"))
        let limit = Int(requested ?? 20)
        let users = try await store.users(tenantID: context.tenantID, afterLocalID: request.nextPageToken ?? "", limit: limit)
        return DownloadAccountResponse(
            users: users.isEmpty ? nil : users.map { userInfo($0, forAdmin: true) },
            nextPageToken: users.count == limit ? users.last?.localID : nil)
    }

    /// `accounts:batchDelete`: up to 1000 IDs; unknown ones count as deleted. Without `force`, an
    /// account that is not disabled is kept and reported.
    func batchDelete(_ request: BatchDeleteRequest, _ context: CallContext) async throws -> BatchDeleteResponse {
        guard context.isAdmin else { throw IdentityToolkitError.insufficientPermission }
        let localIDs = request.localIDs
        guard (1...1000).contains(localIDs.count) else { throw IdentityToolkitError(.localIDListExceedsLimit) }
        let force = request.force ?? false
        var failures: [BatchDeleteResponse.Failure] = []
        for (index, localID) in localIDs.enumerated() {
            guard let user = try await store.user(tenantID: context.tenantID, localID: localID) else { continue }
            if !force && !user.disabled {
                failures.append(.init(index: index, localId: localID, message: "NOT_DISABLED : Disable the account before batch deletion."))
                continue
            }
            _ = try await store.deleteUser(tenantID: context.tenantID, localID: localID)
        }
        return BatchDeleteResponse(errors: failures.isEmpty ? nil : failures)
    }

    /// `accounts:query` without an expression: every account (or only their count), in ID order.
    func query(_ request: QueryAccountsRequest, _ context: CallContext) async throws -> QueryUserInfoResponse {
        guard context.isAdmin else { throw IdentityToolkitError.insufficientPermission }
        if request.filters {
            throw IdentityToolkitError(.notImplemented, detail: "expression is not supported", status: .notImplemented)
        }
        let limit = Int(try request.limit.within(1...500, else: IdentityToolkitError(.invalidArgument, detail: "limit must be 1 to 500")) ?? 500)
        let offset = Int(try request.offset.within(0...1_000_000, else: IdentityToolkitError(.invalidArgument, detail: "offset is out of range")) ?? 0)
        var users: [UserRecord] = []
        var after = ""
        while true {
            let page = try await store.users(tenantID: context.tenantID, afterLocalID: after, limit: 500)
            users += page
            guard page.count == 500, let last = page.last else { break }
            after = last.localID
        }
        if request.order == "DESC" { users.reverse() }
        let selected = Array(users.dropFirst(offset).prefix(limit))
        guard request.returnUserInfo ?? true else { return QueryUserInfoResponse(recordsCount: String(users.count)) }
        return QueryUserInfoResponse(recordsCount: String(selected.count), userInfo: selected.map { userInfo($0, forAdmin: true) })
    }

    /// `DELETE /emulator/v1/projects/{projectID}/accounts`: every account gone, codes kept.
    func resetAccounts(_ context: CallContext) async throws -> EmptyResponse {
        try await store.deleteAllUsers(tenantID: context.tenantID)
        return EmptyResponse()
    }

    /// The emulator's project configuration: what it reports, and what a `PATCH` changes.
    package func emulatorConfig(patch: EmulatorConfigPatch?) throws -> EmulatorProjectConfig {
        if let improved = patch?.enableImprovedEmailPrivacy { overrides.enumerationProtection = improved }
        if patch?.allowsDuplicateEmails == true {
            throw IdentityToolkitError(.invalidArgument, detail: "this backend keeps one account per email address")
        }
        return EmulatorProjectConfig(
            signIn: .init(allowDuplicateEmails: false),
            emailPrivacyConfig: .init(enableImprovedEmailPrivacy: hidesAccounts))
    }
}
