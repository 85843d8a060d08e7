import Foundation
import HTTPTypes
import Hummingbird
import LinkDomainCore
import LinkDomainStorage
import Logging
import NIOCore

/// Serves the embedded backend under the Firebase Auth emulator's paths, so clients pointed at
/// an emulator (`FIREBASE_AUTH_EMULATOR_HOST`, `useEmulator`) talk to it unchanged.
///
/// Every operation is in ``IdentityToolkitOperation/all``, one line each.
struct IdentityToolkitController<Context: ClientAddressRequestContext>: Sendable {
    let service: AccountService
    /// The admin listener's (`admin.listen`, loopback only): `Bearer owner` is an admin in a deployment too.
    var ownerIsAdmin = false

    var routes: RouteCollection<Context> {
        let routes = RouteCollection(context: Context.self)
        routes.post("/identitytoolkit.googleapis.com/v1/**") { request, context in
            await answer(context) { try await dispatch(request, context: context, path: context.parameters.getCatchAll()) }
        }
        routes.get("/identitytoolkit.googleapis.com/v1/**") { request, context in
            await answer(context) { try await dispatch(request, context: context, path: context.parameters.getCatchAll(), bodyFromQuery: true) }
        }
        routes.get("/identitytoolkit.googleapis.com/v1/projects") { request, context in
            await answer(context) {
                try authorize(request, isAdmin: isAdmin(request))
                return json(service.projectConfig())
            }
        }
        // Identity Toolkit v2: sign-in provider configurations (OIDC, SAML). This backend has none and
        // takes none: listings are empty, one named is not found, a new one is refused, never stored and ignored.
        routes.get("/identitytoolkit.googleapis.com/v2/**") { request, context in
            await answer(context) {
                try authorize(request, isAdmin: isAdmin(request))
                let last = context.parameters.getCatchAll().last ?? ""
                guard last == "oauthIdpConfigs" || last == "inboundSamlConfigs" else { throw Self.configurationNotFound }
                return json(EmptyResponse())
            }
        }
        for method in [HTTPRequest.Method.post, .patch, .delete] {
            routes.on("/identitytoolkit.googleapis.com/v2/**", method: method) { request, context in
                await answer(context) {
                    try authorize(request, isAdmin: isAdmin(request))
                    if method == .delete { throw Self.configurationNotFound }
                    throw IdentityToolkitError(.operationNotAllowed, detail: "sign-in provider configurations are not supported by this backend")
                }
            }
        }
        routes.post("/www.googleapis.com/identitytoolkit/v3/relyingparty/:name") { request, context in
            await answer(context) { try await legacy(request, context: context) }
        }
        routes.get("/www.googleapis.com/identitytoolkit/v3/relyingparty/getProjectConfig") { request, context in
            await answer(context) {
                try authorize(request, isAdmin: isAdmin(request))
                return json(service.projectConfig())
            }
        }
        routes.post("/securetoken.googleapis.com/v1/token") { request, context in
            await answer(context) {
                try authorize(request, isAdmin: false)
                return json(try await service.refresh(try await requestBody(request, context: context).decode()))
            }
        }
        // The emulator's outbox: every live code with its address. Only a developer's own machine has it.
        if service.settings.mode == .development {
            routes.get("/emulator/v1/projects/:projectID/oobCodes") { _, context in
                await answer(context) { json(try await service.listCodes(projectID: context.parameters.get("projectID") ?? "")) }
            }
            // The emulator's test hooks: start each test from no accounts, and change the project's settings.
            routes.delete("/emulator/v1/projects/:projectID/accounts") { _, context in
                await answer(context) { json(try await service.resetAccounts(CallContext())) }
            }
            routes.delete("/emulator/v1/projects/:projectID/tenants/:tenantID/accounts") { _, context in
                await answer(context) { json(try await service.resetAccounts(CallContext(tenantID: context.parameters.get("tenantID") ?? ""))) }
            }
            routes.get("/emulator/v1/projects/:projectID/config") { _, context in
                await answer(context) { json(try service.emulatorConfig(patch: nil)) }
            }
            routes.patch("/emulator/v1/projects/:projectID/config") { request, context in
                await answer(context) { json(try service.emulatorConfig(patch: try await requestBody(request, context: context).decode())) }
            }
        }
        return routes
    }

    private func legacy(_ request: Request, context: Context) async throws -> Response {
        let name = context.parameters.get("name") ?? ""
        guard let operation = IdentityToolkitOperation.byLegacyName[name] else { throw IdentityToolkitError.notFound(request.uri.path) }
        return try await run(operation, request, context: context, call: CallContext(isAdmin: try isAdmin(request)))
    }

    /// `v1/accounts:X`, `v1/projects/P/accounts:X`, `v1/projects/P/tenants/T/accounts:X`, or
    /// `v1/projects/P:X` (`createSessionCookie`).
    private func dispatch(_ request: Request, context: Context, path: [Substring], bodyFromQuery: Bool = false) async throws -> Response {
        var call = CallContext(isAdmin: try isAdmin(request))
        var rest = path[...]
        if rest.first == "projects", rest.count == 2, let projectCall = rest.last,
            projectCall.hasPrefix(service.settings.projectID + ":")
        {
            let name = String(projectCall.dropFirst(service.settings.projectID.count + 1))
            guard let operation = IdentityToolkitOperation.byName[name], bodyFromQuery == (operation.method == .get) else {
                throw IdentityToolkitError.notFound(request.uri.path)
            }
            return try await run(operation, request, context: context, call: call)
        }
        if rest.first == "projects" {
            guard rest.count >= 3, rest.dropFirst().first == Substring(service.settings.projectID) else {
                throw IdentityToolkitError(.projectNotFound, status: .notFound)
            }
            rest = rest.dropFirst(2)
            if rest.first == "tenants", rest.count >= 3, let tenant = rest.dropFirst().first {
                guard tenant.utf8.count <= 128 else { throw IdentityToolkitError(.invalidTenantID) }
                call.tenantID = String(tenant)
                rest = rest.dropFirst(2)
            }
        }
        guard rest.count == 1, let name = rest.first, let operation = IdentityToolkitOperation.byName[String(name)],
            bodyFromQuery == (operation.method == .get)
        else { throw IdentityToolkitError.notFound(request.uri.path) }
        return try await run(operation, request, context: context, call: call)
    }

    private func run(_ operation: IdentityToolkitOperation, _ request: Request, context: Context, call: CallContext) async throws -> Response {
        try authorize(request, isAdmin: call.isAdmin)
        var call = call
        call.languageCode = request.headers[.firebaseLocale]
        call.clientAddress = context.clientAddress
        let body: RequestBody
        if operation.method == .get {
            // A query is form-encoded: the same reading, and the same limits, as a form body.
            let fields = RequestBodyDecoder.form((request.uri.query ?? "").utf8)
            try RequestBodyDecoder.check(fields)
            body = RequestBody(fields)
        } else {
            body = try await requestBody(request, context: context, large: operation.takesLargeBody)
        }
        if call.tenantID.isEmpty, let tenant = try body.decode(RequestTenant.self).tenantID { call.tenantID = tenant }
        return json(try await operation.serve(service, body, call))
    }

    static var configurationNotFound: IdentityToolkitError { IdentityToolkitError(.configurationNotFound, status: .notFound) }

    /// Whether the call is an admin's: `Authorization: Bearer KEY` with one of the configured admin
    /// keys, or in development `Bearer owner` as the emulator accepts. In a deployment a bearer token
    /// that is not an admin key is refused outright rather than read as a client call.
    private func isAdmin(_ request: Request) throws(IdentityToolkitError) -> Bool {
        guard let authorization = request.headers[.authorization] else { return false }
        let settings = service.settings
        let token = authorization.hasPrefix("Bearer ") ? authorization.dropFirst("Bearer ".count) : ""
        if !token.isEmpty, settings.adminKeys.contains(where: { ConstantTime.equal($0.utf8, token.utf8) }) { return true }
        switch settings.mode {
        case .development: return token == "owner"
        case .deployment where ownerIsAdmin && token == "owner": return true
        case .deployment: throw IdentityToolkitError.unauthenticated
        }
    }

    /// Client calls carry an API key (`?key=` or `X-Goog-Api-Key`): any key in development, as the
    /// emulator takes any; a configured one in a deployment.
    private func authorize(_ request: Request, isAdmin: Bool) throws(IdentityToolkitError) {
        if isAdmin { return }
        let key = request.uri.queryParameters["key"].flatMap { $0.isEmpty ? nil : String($0) } ?? request.headers[.googAPIKey]
        guard let key, !key.isEmpty else { throw IdentityToolkitError.missingAPIKey }
        let settings = service.settings
        guard settings.mode == .development || settings.clientAPIKeys.contains(where: { ConstantTime.equal($0.utf8, key.utf8) }) else {
            throw IdentityToolkitError.invalidAPIKey
        }
    }

    private func requestBody(_ request: Request, context: Context, large: Bool = false) async throws -> RequestBody {
        let limit = large ? RequestBodyDecoder.maximumLargeBodyBytes : RequestBodyDecoder.maximumBodyBytes
        let buffer = try await RequestBodyDecoder.collect(request, upTo: limit)
        return try RequestBodyDecoder.decode(buffer.readableBytesView, contentType: request.headers[.contentType], maximumBytes: limit)
    }

    private func json(_ value: some Encodable) -> Response {
        .json(value)
    }
}

extension IdentityToolkitController {
    /// Runs a handler, answering ``IdentityToolkitError`` with its JSON body and any other failure
    /// with `INTERNAL_ERROR` (logged by type only: request bodies hold passwords and codes).
    func answer(_ context: Context, _ work: () async throws -> Response) async -> Response {
        do {
            return try await work()
        } catch let error as IdentityToolkitError {
            var response = Response.json(error.body, status: error.status)
            // A 429 (a budget, or the password checks' queue full) says when to try again.
            if error.status == .tooManyRequests { response.headers[.retryAfter] = "1" }
            return response
        } catch StoreError.unavailable {
            // The database is away or slow: say so at once, and when to try again.
            var response = Response.json(
                IdentityToolkitError(
                    .internalError, detail: "the database is unavailable; try again shortly",
                    status: .serviceUnavailable
                ).body, status: .serviceUnavailable)
            response.headers[.retryAfter] = "5"
            return response
        } catch let error as StoreError {
            context.logger.error("storage failure", metadata: ["error": .string("\(error)")])
        } catch let error as any HTTPResponseError {
            return Response.json(
                IdentityToolkitError(.requestRejected, detail: error.status.reasonPhrase, status: error.status).body,
                status: error.status)
        } catch {
            context.logger.error("backend failure", metadata: ["error": .string(String(describing: type(of: error)))])
        }
        return Response.json(IdentityToolkitError.internalError.body, status: .internalServerError)
    }
}
