import Foundation
import LinkDomainCore
import LinkDomainStorage
import NIOHTTP1

/// What the doctor checks in each fetched document: pure functions of the bytes and headers.
extension DeploymentDoctor {
    /// Status, redirect, content type and size: what both verifiers require before they read a byte.
    static func checkTransport(_ document: FetchedDocument, subject: String, path: String) -> [DoctorFinding] {
        if (300..<400).contains(document.status) {
            let target = document.headers.first(name: "Location") ?? "elsewhere"
            return [
                DoctorFinding(
                    .error, subject, "\(path) redirects (\(document.status)) to \(target); the verifiers do not follow redirects",
                    fix: "Serve the file at exactly \(path) on this host with 200, with no redirect (not to www., not to a trailing slash).")
            ]
        }
        guard document.status == 200 else {
            return [
                DoctorFinding(
                    .error, subject, "\(path) answers \(document.status), not 200",
                    fix: "Serve the file at \(path); with LinkDomain, configure the apps under apple.apps / android.apps.")
            ]
        }
        var findings: [DoctorFinding] = [DoctorFinding(.ok, subject, "\(path) answers 200 with no redirect")]
        let contentType = document.headers.first(name: "Content-Type") ?? "(none)"
        if looksLikeHTML(document.body) || contentType.lowercased().hasPrefix("text/html") {
            findings.append(
                DoctorFinding(
                    .error, subject, "\(path) is an HTML page (\(contentType)), not the JSON file",
                    fix: "A catch-all route (a single-page app's index.html, a CMS) answers this path; serve the JSON file before it."))
            return findings
        }
        if contentType == "application/json" {
            findings.append(DoctorFinding(.ok, subject, "Content-Type is application/json"))
        } else {
            findings.append(
                DoctorFinding(
                    .error, subject, "Content-Type is \(contentType), not application/json",
                    fix: "Serve the file with exactly \"Content-Type: application/json\" (no charset, no other type)."))
        }
        if document.truncated || document.body.count > sizeLimit {
            findings.append(
                DoctorFinding(
                    .error, subject,
                    "the file is \(document.truncated ? "over \(sizeLimit * 4)" : String(document.body.count)) bytes; Apple reads at most \(sizeLimit)",
                    fix: "Shorten the file: list paths as a few wildcard components rather than one per link."))
        } else {
            findings.append(DoctorFinding(.ok, subject, "\(document.body.count) bytes, within the \(sizeLimit)-byte limit"))
        }
        return findings
    }

    static func checkApple(_ document: FetchedDocument) -> [DoctorFinding] {
        var findings = checkTransport(document, subject: apple, path: applePath)
        guard !findings.contains(where: { $0.severity == .error && $0.message.contains("HTML") }), document.status == 200, !document.truncated else {
            return findings
        }
        var validator = AppleAssociationFileValidator(source: apple)
        validator.validate(Data(document.body), configuredApps: [])
        for problem in validator.problems {
            findings.append(DoctorFinding(.error, apple, "\(problem.key) \(problem.problem)", fix: "Expected \(problem.expected)."))
        }
        guard validator.problems.isEmpty, case .object(let root)? = try? JSONDecoder().decode(JSONValue.self, from: Data(document.body)) else {
            return findings
        }
        guard case .object(let applinks)? = root["applinks"], case .list(let details)? = applinks["details"], !details.isEmpty else {
            findings.append(
                DoctorFinding(
                    .error, apple, "no applinks.details: no app opens this domain's links",
                    fix: "Add {\"applinks\": {\"details\": [{\"appIDs\": [\"TEAMID.bundle.id\"], \"components\": [...]}]}}."))
            return findings
        }
        findings.append(DoctorFinding(.ok, apple, "valid JSON; every app ID is TEAMID.bundle.id"))
        for path in ["/__/auth/links", "/__/auth/action"] {
            let handled = details.contains { detail in
                guard case .object(let entry) = detail else { return false }
                return AppleAssociationPatterns.handles(path, entry: entry)
            }
            findings.append(
                handled
                    ? DoctorFinding(.ok, apple, "\(path) opens the app")
                    : DoctorFinding(
                        .error, apple, "no app handles \(path): email links open the browser, not the app",
                        fix: "Add the component {\"/\": \"\(path)*\"} to the app's entry (LinkDomain's generated file has it)."))
        }
        findings.append(checkShortLinks(details))
        return findings
    }

    static func checkAndroid(_ document: FetchedDocument) -> [DoctorFinding] {
        var findings = checkTransport(document, subject: android, path: androidPath)
        guard !findings.contains(where: { $0.severity == .error && $0.message.contains("HTML") }), document.status == 200, !document.truncated else {
            return findings
        }
        guard case .list(let statements)? = try? JSONDecoder().decode(JSONValue.self, from: Data(document.body)) else {
            findings.append(
                DoctorFinding(
                    .error, android, "the file is not a JSON list of statements",
                    fix: "Serve [{\"relation\": [\"delegate_permission/common.handle_all_urls\"], \"target\": {...}}]."))
            return findings
        }
        var apps = 0
        for (index, statement) in statements.enumerated() {
            guard case .object(let fields) = statement, case .list(let relations)? = fields["relation"],
                relations.contains(.string("delegate_permission/common.handle_all_urls")),
                case .object(let target)? = fields["target"], target["namespace"] == .string("android_app")
            else { continue }
            guard case .string(let package)? = target["package_name"], ConfigurationValidators.packageName(package) != nil else {
                findings.append(
                    DoctorFinding(
                        .error, android, "statement \(index) has no valid package_name",
                        fix: "Set \"package_name\" to the app's application ID, such as com.example.app."))
                continue
            }
            guard case .list(let prints)? = target["sha256_cert_fingerprints"], !prints.isEmpty else {
                findings.append(
                    DoctorFinding(
                        .error, android, "\(package) lists no sha256_cert_fingerprints",
                        fix: "Add the SHA-256 fingerprint of the signing key (Play Console → App signing)."))
                continue
            }
            for print in prints {
                guard case .string(let value) = print, value.utf8.count == 95, ConfigurationValidators.fingerprint(value) != nil else {
                    findings.append(
                        DoctorFinding(
                            .error, android, "\(package) has a malformed fingerprint \(print)",
                            fix: "Write fingerprints as 32 upper-case hex bytes joined by colons (AB:CD:...)."))
                    continue
                }
            }
            apps += 1
        }
        findings.append(
            apps > 0
                ? DoctorFinding(.ok, android, "\(apps) app(s) with well-formed package names and fingerprints")
                : DoctorFinding(
                    .error, android, "no statement lets an app handle this domain's links",
                    fix: "Add a delegate_permission/common.handle_all_urls statement for each Android app."))
        return findings
    }

    static func checkCatchAll(_ document: FetchedDocument) -> [DoctorFinding] {
        guard document.status == 200, looksLikeHTML(document.body) else {
            return [DoctorFinding(.ok, "site", "unknown paths are not answered with an HTML page")]
        }
        return [
            DoctorFinding(
                .warning, "site", "an unknown path under /.well-known/ answers 200 with HTML: a catch-all route",
                fix: "A catch-all can hide a missing association file behind a page; let unknown paths answer 404.")
        ]
    }

    /// A path shaped like a short link (`/` and a generated suffix), asked of the file as iOS would.
    static let shortLinkSample = "/Ab3dE9"

    /// Whether short links open an app: Dynamic Links' did wherever the app claimed the domain;
    /// here only where the file claims their paths (a warning otherwise, with what to add).
    static func checkShortLinks(_ details: [JSONValue]) -> DoctorFinding {
        let opening = details.compactMap { detail -> String? in
            guard case .object(let entry) = detail, AppleAssociationPatterns.handles(shortLinkSample, entry: entry) else { return nil }
            if case .list(let ids)? = entry["appIDs"], case .string(let first)? = ids.first { return first }
            if case .string(let id)? = entry["appID"] { return id }
            return "an app"
        }
        if let app = opening.first { return DoctorFinding(.ok, apple, "short links (such as \(shortLinkSample)) open \(app)") }
        return DoctorFinding(
            .warning, apple, "short links (such as \(shortLinkSample)) open the browser, not the app: no app claims them",
            fix: "To open short links in the app, add \"/*\" (and \"NOT /__/*\" first if the app must not take this service's pages) to apple.apps[i].paths.")
    }

    static func looksLikeHTML(_ body: [UInt8]) -> Bool {
        let start = body.drop { $0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09 || $0 == 0xEF || $0 == 0xBB || $0 == 0xBF }
        return start.first == UInt8(ascii: "<")
    }

    /// Apple's CDN copy against the host's file: the same, older (what differs), or none yet.
    static func compareAppleCopy(_ copy: Result<FetchedDocument, FetchProblem>, with served: FetchedDocument) -> DoctorFinding {
        let subject = "Apple's CDN"
        let refresh =
            "Apple's CDN fetches the file again on its own schedule (within about a day, sometimes longer); "
            + "to test a change at once, use the developer mode `?mode=developer` associated domain on a test device."
        guard case .success(let document) = copy else {
            if case .failure(let problem) = copy {
                return DoctorFinding(.warning, subject, "its copy could not be read: \(problem.message)", fix: refresh, expectedInDevelopment: true)
            }
            return DoctorFinding(.warning, subject, "its copy could not be read", fix: refresh, expectedInDevelopment: true)
        }
        guard document.status == 200 else {
            return DoctorFinding(
                .warning, subject, "has no copy of this host's file yet (\(document.status)): iPhones will not open links in the app until it has",
                fix: refresh, expectedInDevelopment: true)
        }
        let ours = try? JSONDecoder().decode(JSONValue.self, from: Data(served.body))
        let theirs = try? JSONDecoder().decode(JSONValue.self, from: Data(document.body))
        if let ours, ours == theirs { return DoctorFinding(.ok, subject, "serves the same file as this host") }
        let ourIDs = Set(appIDs(ours)), theirIDs = Set(appIDs(theirs))
        let ourPaths = Set(claimedPaths(ours)), theirPaths = Set(claimedPaths(theirs))
        var differences: [String] = []
        if !ourIDs.subtracting(theirIDs).isEmpty { differences.append("lacks app IDs \(ourIDs.subtracting(theirIDs).sorted().joined(separator: ", "))") }
        if !theirIDs.subtracting(ourIDs).isEmpty { differences.append("still names app IDs \(theirIDs.subtracting(ourIDs).sorted().joined(separator: ", "))") }
        if !ourPaths.subtracting(theirPaths).isEmpty { differences.append("lacks paths \(ourPaths.subtracting(theirPaths).sorted().joined(separator: ", "))") }
        if !theirPaths.subtracting(ourPaths).isEmpty {
            differences.append("still has paths \(theirPaths.subtracting(ourPaths).sorted().joined(separator: ", "))")
        }
        let what = differences.isEmpty ? "differs from this host's file" : differences.joined(separator: "; ")
        return DoctorFinding(.warning, subject, "serves an older file than this host: it \(what); iPhones follow Apple's copy", fix: refresh)
    }

    private static func details(_ root: JSONValue?) -> [[String: JSONValue]] {
        guard case .object(let fields)? = root, case .object(let links)? = fields["applinks"], case .list(let details)? = links["details"] else { return [] }
        return details.compactMap { if case .object(let detail) = $0 { detail } else { nil } }
    }

    private static func appIDs(_ root: JSONValue?) -> [String] {
        details(root).flatMap { detail -> [String] in
            var ids: [String] = []
            if case .list(let list)? = detail["appIDs"] { for case .string(let id) in list { ids.append(id) } }
            if case .string(let id)? = detail["appID"] { ids.append(id) }
            return ids
        }
    }

    private static func claimedPaths(_ root: JSONValue?) -> [String] {
        details(root).flatMap { detail -> [String] in
            guard case .list(let components)? = detail["components"] else { return [] }
            return components.compactMap { component in
                guard case .object(let fields) = component, case .string(let path)? = fields["/"] else { return nil }
                return (fields["exclude"] == .boolean(true) ? "NOT " : "") + path
            }
        }
    }
}
