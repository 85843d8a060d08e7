import LinkDomainCore
import LinkDomainStorage

/// ``AuthBackend`` served in-process by the embedded backend: the same operations its HTTP API runs.
struct EmbeddedAuthBackend: AuthBackend {
    let service: AccountService

    func checkCode(_ code: String, context: BackendCallContext) async throws(BackendError) -> CodeInfo {
        try await call(context) { service, call in
            try RequestBodyDecoder.oobCodeLimit.check(code)
            let record = try await service.liveCode(code)
            return CodeInfo(record)
        }
    }

    func checkCodeWithoutWaiting(_ code: String) -> CodeInfo? {
        // The pages' values meet the HTTP API's limits, as in ``call(_:_:)``.
        guard (try? RequestBodyDecoder.oobCodeLimit.check(code)) != nil else { return nil }
        return service.liveCodeWithoutWaiting(code).map(CodeInfo.init)
    }

    func resetPassword(code: String, newPassword: String, context: BackendCallContext) async throws(BackendError) -> CodeInfo {
        try await call(context) { service, call in
            try RequestBodyDecoder.oobCodeLimit.check(code)
            try RequestBodyDecoder.passwordLimit.check(newPassword)
            return CodeInfo(try await service.resetPassword(ResetPasswordRequest(oobCode: code, newPassword: newPassword), call))
        }
    }

    func applyCode(_ code: String, expecting requestType: OobRequestType, context: BackendCallContext) async throws(BackendError) -> CodeInfo {
        // accounts:update answers with the account; what the code is for comes from checking it first.
        let info = try await checkCode(code, context: context)
        guard info.requestType == requestType else { throw .rejected(BackendRefusal(.invalidOobCode, detail: "the code is for another action")) }
        return try await call(context) { service, call in
            let applied = try await service.update(UpdateAccountRequest(oobCode: code), call)
            return CodeInfo(requestType: info.requestType, email: applied.email ?? info.email, newEmail: info.newEmail)
        }
    }

    func isReachable() async -> Bool { true }

    /// Runs an operation as the pages' call, its refusals as the pages hear a backend's. The pages'
    /// form values meet the same limits as the HTTP API's bodies (checked by each operation first).
    private func call(
        _ context: BackendCallContext, _ operation: (AccountService, CallContext) async throws -> CodeInfo
    ) async throws(BackendError) -> CodeInfo {
        do {
            return try await operation(service, CallContext(tenantID: context.tenantID ?? ""))
        } catch let error as IdentityToolkitError {
            throw BackendError.rejected(BackendRefusal(error.code, detail: error.detail))
        } catch let error as BackendError {
            throw error
        } catch {
            throw .unreachable
        }
    }
}

extension CodeInfo {
    init(_ response: ResetPasswordResponse) {
        self.init(requestType: response.requestType, email: response.email, newEmail: response.newEmail)
    }

    /// What checking a live code tells the pages: what `accounts:resetPassword` with only the code
    /// answers, and whether an app asked for it, as the record says (nil for older codes: the
    /// link's shape tells).
    init(_ record: OobCodeRecord) {
        self.init(OobCodeSummary(record))
    }

    init(_ summary: OobCodeSummary) {
        self.init(AccountService.checked(summary))
        askedByApp = summary.askedByApp
    }
}
