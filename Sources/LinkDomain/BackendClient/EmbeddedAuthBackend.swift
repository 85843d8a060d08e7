/// ``AuthBackend`` served in-process by the embedded backend: the same operations its HTTP API runs.
struct EmbeddedAuthBackend: AuthBackend {
    let service: AccountService

    func checkCode(_ code: String, context: BackendCallContext) async throws(BackendError) -> CodeInfo {
        try await call(["oobCode": .string(code)], context) { CodeInfo(try await $0.resetPassword($1, $2)) }
    }

    func checkCodeWithoutWaiting(_ code: String) -> CodeInfo? {
        // The pages' values meet the HTTP API's limits, as in ``call(_:_:_:)``.
        guard (try? RequestBodyDecoder.check(["oobCode": .string(code)])) != nil else { return nil }
        return service.checkWithoutWaiting(code).map(CodeInfo.init)
    }

    func resetPassword(code: String, newPassword: String, context: BackendCallContext) async throws(BackendError) -> CodeInfo {
        try await call(["oobCode": .string(code), "newPassword": .string(newPassword)], context) { CodeInfo(try await $0.resetPassword($1, $2)) }
    }

    func applyCode(_ code: String, expecting requestType: OobRequestType, context: BackendCallContext) async throws(BackendError) -> CodeInfo {
        // accounts:update answers with the account; what the code is for comes from checking it first.
        let info = try await checkCode(code, context: context)
        guard info.requestType == requestType else { throw .rejected(BackendRefusal(.invalidOobCode, detail: "the code is for another action")) }
        return try await call(["oobCode": .string(code)], context) { service, body, call in
            let applied = try await service.update(body, call)
            return CodeInfo(requestType: info.requestType, email: applied.email ?? info.email, newEmail: info.newEmail)
        }
    }

    func isReachable() async -> Bool { true }

    private func call(
        _ fields: [String: JSONValue], _ context: BackendCallContext,
        _ operation: (AccountService, RequestBody, CallContext) async throws -> CodeInfo
    ) async throws(BackendError) -> CodeInfo {
        do {
            // The pages' form values meet the same limits as the HTTP API's bodies.
            try RequestBodyDecoder.check(fields)
            return try await operation(service, RequestBody(fields), CallContext(tenantID: context.tenantID ?? ""))
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
        self.init(requestType: OobRequestType(rawValue: response.requestType), email: response.email, newEmail: response.newEmail)
    }
}
