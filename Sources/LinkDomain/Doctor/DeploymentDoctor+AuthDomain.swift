import Foundation
import LinkDomainCore
import LinkDomainStorage
import NIOHTTP1

/// The auth domain's other half, as `doctor` checks it (docs/design/auth-helper.md): Firebase's
/// sign-in helper answering through this host, `init.json` naming it, and the passkey and
/// password-manager files well-formed where they are served. None is required: a path that
/// answers 404 is reported as not served.
extension DeploymentDoctor {
    static let helperPaths = [AuthHelperScope.handler, AuthHelperScope.handler + ".js", "/__/auth/iframe", "/__/auth/iframe.js"]
    static let firebaseInitPath = AuthHelperScope.firebaseInit
    static let webauthnPath = RoutePaths.webauthn
    static let passkeyEndpointsPath = RoutePaths.passkeyEndpoints
    static let changePasswordPath = RoutePaths.changePassword

    /// The helper's four paths, each fetched once: 200 everywhere, or not served at all.
    static func checkHelper(_ answers: [(path: String, status: Int)], base: String) -> [DoctorFinding] {
        let subject = "sign-in helper"
        if answers.allSatisfy({ $0.status == 404 }) {
            return [DoctorFinding(.ok, subject, "not served (signInWithRedirect on this domain needs authHandler.origin; docs/deployment.md)")]
        }
        var findings: [DoctorFinding] = []
        for (path, status) in answers where status != 200 {
            findings.append(
                DoctorFinding(
                    status >= 500 ? .error : .warning, subject, "\(path) answers \(status), not 200",
                    fix: "Check authHandler.origin (https://<project>.firebaseapp.com) and that a proxy in front passes /__/auth/* through."))
        }
        if findings.isEmpty {
            findings.append(DoctorFinding(.ok, subject, "\(answers.map(\.path).joined(separator: ", ")) answer 200 through this host"))
            findings.append(
                DoctorFinding(
                    .ok, subject,
                    "list \(base)/__/auth/handler as an authorized redirect URI with each OAuth provider (Google, Apple, GitHub...), "
                        + "add this host to the Firebase console's authorized domains, and set authDomain to it in the app"))
        }
        return findings
    }

    /// `init.json`: JSON naming this host as `authDomain`.
    static func checkFirebaseInit(_ document: FetchedDocument, authority: String) -> [DoctorFinding] {
        let subject = "init.json"
        guard document.status != 404 else { return [DoctorFinding(.ok, subject, "\(firebaseInitPath) is not served")] }
        guard document.status == 200, case .object(let fields)? = json(document) else {
            return [
                DoctorFinding(
                    .error, subject, "\(firebaseInitPath) answers \(document.status) without a JSON object",
                    fix: "The Firebase SDK reads the app's config there; serve it (LinkDomain does from its configuration).")
            ]
        }
        guard case .string(let authDomain)? = fields["authDomain"], authDomain == authority else {
            return [
                DoctorFinding(
                    .warning, subject, "authDomain is not \(authority)",
                    fix: "Set publicBaseURL to this host, so that the helper's pages and the app agree on the auth domain.")
            ]
        }
        return [DoctorFinding(.ok, subject, "authDomain is \(authority)")]
    }

    /// `webauthn` and `passkey-endpoints`: JSON with https origins (no paths) or https URLs.
    static func checkCredentialDocument(_ document: FetchedDocument, path: String) -> [DoctorFinding] {
        let subject = String(path.dropFirst("/.well-known/".count))
        guard document.status != 404 else { return [DoctorFinding(.ok, subject, "\(path) is not served")] }
        let contentType = document.headers.first(name: "Content-Type") ?? "(none)"
        guard document.status == 200, contentType.hasPrefix("application/json"), case .object(let fields)? = json(document) else {
            return [
                DoctorFinding(
                    .error, subject, "\(path) answers \(document.status) (\(contentType)), not a JSON object",
                    fix: "Serve it with 200 and Content-Type application/json, or not at all (404).")
            ]
        }
        let values: [(String, JSONValue)] =
            path == webauthnPath
            ? (fields["origins"].flatMap { if case .list(let items) = $0 { items.map { ("origins", $0) } } else { nil } } ?? [("origins", .null)])
            : fields.sorted { $0.key < $1.key }
        for (name, value) in values {
            let valid =
                if case .string(let text) = value {
                    name == "origins" ? ConfigurationValidators.httpsOrigin(text) != nil : ConfigurationValidators.httpsURL(text) != nil
                } else { false }
            if !valid {
                return [
                    DoctorFinding(
                        .error, subject, "\(path): \(name) holds a value that is not an https \(name == "origins" ? "origin without a path" : "URL")",
                        fix: "List https:// origins (passkeys.relatedOrigins) or URLs (passkeys.enrollURL, passkeys.manageURL).")
                ]
            }
        }
        return [DoctorFinding(.ok, subject, "\(path) is JSON with https values")]
    }

    /// `change-password`: a redirect to an https page.
    static func checkChangePassword(_ document: FetchedDocument) -> [DoctorFinding] {
        let subject = "change-password"
        guard document.status != 404 else { return [DoctorFinding(.ok, subject, "\(changePasswordPath) is not served")] }
        guard (300..<400).contains(document.status), let location = document.headers.first(name: "Location"),
            ConfigurationValidators.httpsURL(location) != nil
        else {
            return [
                DoctorFinding(
                    .warning, subject, "\(changePasswordPath) answers \(document.status) without a redirect to an https page",
                    fix: "Set changePasswordURL to the page where people change their password.")
            ]
        }
        return [DoctorFinding(.ok, subject, "\(changePasswordPath) redirects to \(location)")]
    }

    private static func json(_ document: FetchedDocument) -> JSONValue? {
        try? JSONDecoder().decode(JSONValue.self, from: Data(document.body))
    }
}
