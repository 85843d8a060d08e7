import LinkDomain
import Foundation
import Logging

/// Takes arbitrary bytes through what an Identity Toolkit request meets after routing: the checked
/// body decoder, then the operation, against a real SQLite store that holds a signed-in user. The
/// fuzzer (`Fuzz/`) calls it with generated input, the tests with the fuzzer's corpus.
///
/// Input: the first byte picks the operation, the second how it is called (form or JSON, admin or
/// client, development or deployment, tenant or not), the rest is the body. In the body,
/// `$ID_TOKEN`, `$REFRESH_TOKEN`, `$CODE` and `$LOCAL_ID` stand for the live user's values, so the
/// fuzzer reaches past "unknown token".
public final class IdentityToolkitExercise: Sendable {
    private let services: [ServingMode: AccountService]
    private let clock = ManualWallClock(milliseconds: 1_800_000_000_000)
    private let substitutions: [(String, String)]
    /// What the first byte picks. The order is fixed (new operations go at the end), so the kept
    /// corpus and the named seeds keep meaning the same calls.
    private static let names = [
        "accounts", "accounts:createAuthUri", "accounts:delete", "accounts:lookup", "accounts:resetPassword", "accounts:sendOobCode",
        "accounts:signInWithEmailLink", "accounts:signInWithPassword", "accounts:signUp", "accounts:update", "token", "projects", "oobCodes",
        "accounts:batchCreate", "accounts:batchDelete", "accounts:batchGet", "accounts:query", "accounts:signInWithCustomToken",
        "createSessionCookie", "emulatorConfig",
    ]

    /// Creates the store in a new temporary directory, and the user the inputs act on.
    public init() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("linkdomain-exercise-\(UUID().uuidString)")
        let store = try SQLiteStore(path: directory.appendingPathComponent("auth.sqlite").path)
        var services: [ServingMode: AccountService] = [:]
        for mode in [ServingMode.development, .deployment] {
            var settings = EmbeddedBackendSettings(
                projectID: "demo-exercise", apiKey: "exercise-key", publicBaseURL: "https://links.example.com",
                linkHost: "links.example.com", authorizedDomains: ["example.com", "links.example.com"])
            settings.mode = mode
            settings.passwordHashRounds = 1 << 4  // the cheapest scrypt: the fuzzer runs thousands of sign-ups
            services[mode] = AccountService(
                settings: settings, store: store, tokens: TokenIssuer(store: store, projectID: settings.projectID),
                clock: clock, logger: Logger(label: "exercise", factory: { _ in SwiftLogNoOpLogHandler() }))
        }
        self.services = services
        guard let service = services[.development] else { throw IdentityToolkitError.internalError }
        let signUp = try await service.signUp(SignUpRequest(email: "user@example.com", password: "secret1"), CallContext())
        let code = try await service.sendOobCode(
            SendOobCodeRequest(requestType: .passwordReset, email: "user@example.com", returnOobLink: true), CallContext(isAdmin: true))
        substitutions = [
            ("$ID_TOKEN", signUp.idToken ?? ""), ("$REFRESH_TOKEN", signUp.refreshToken ?? ""),
            ("$CODE", code.oobCode ?? ""), ("$LOCAL_ID", signUp.localId),
        ]
    }

    /// Runs one input. Refusals are expected answers; only a trap (the fuzzer's finding) or a hang is wrong.
    public func run(_ bytes: [UInt8]) async {
        guard bytes.count >= 2 else { return }
        let name = Self.names[Int(bytes[0]) % Self.names.count]
        let flags = bytes[1]
        var text = String(decoding: bytes[2...], as: UTF8.self)
        for (placeholder, value) in substitutions where text.contains(placeholder) {
            text = text.replacingOccurrences(of: placeholder, with: value)
        }
        guard let service = services[flags & 4 == 0 ? .development : .deployment] else { return }
        let call = CallContext(tenantID: flags & 8 == 0 ? "" : "tenant-1", isAdmin: flags & 2 != 0, languageCode: flags & 16 == 0 ? nil : "ru")
        do {
            let body = try RequestBodyDecoder.decode(Array(text.utf8), contentType: flags & 1 == 0 ? "application/json" : "application/x-www-form-urlencoded")
            switch name {
            case "token": _ = try await service.refresh(body.decode())
            case "projects": _ = service.projectConfig()
            case "oobCodes": _ = try await service.listCodes(projectID: "demo-exercise")
            case "emulatorConfig": _ = try service.emulatorConfig(patch: body.decode())
            default: _ = try await IdentityToolkitOperation.byName[name]?.serve(service, body, call)
            }
        } catch {
            // Refusals (IdentityToolkitError) and storage errors are answers, not findings.
        }
        if flags & 32 != 0 { clock.advance(seconds: 3600) }  // let codes and tokens expire now and then
    }
}
