import LinkDomainCore
import LinkDomainStorage

/// ``ActionLinkSource`` served in-process by the embedded backend, as its admin API would.
struct EmbeddedActionLinks: ActionLinkSource {
    let service: AccountService

    func actionLink(_ request: ActionLinkRequest) async throws(BackendError) -> String? {
        do {
            let context = CallContext(tenantID: request.tenantID ?? "", isAdmin: true, languageCode: request.languageCode)
            return try await service.sendOobCode(request.adminRequest, context).oobLink
        } catch let error as IdentityToolkitError where error.code == .emailNotFound {
            return nil
        } catch {
            throw Self.backendError(error)
        }
    }

    /// Every code lives `backend.codeLifetimeSeconds`.
    func codeLifetimeSeconds(_ type: OobRequestType) -> Int? {
        service.settings.codeLifetimeSeconds
    }

    func verify(idToken: String, tenantID: String?) async throws(BackendError) -> VerifiedAccount {
        do {
            let user = try await service.authenticated(idToken: idToken, tenantID: tenantID).user
            return VerifiedAccount(localID: user.localID, email: user.email)
        } catch {
            throw Self.backendError(error)
        }
    }

    static func backendError(_ error: any Error) -> BackendError {
        if let error = error as? IdentityToolkitError { return .rejected(BackendRefusal(error.code, detail: error.detail)) }
        return .unreachable
    }
}
