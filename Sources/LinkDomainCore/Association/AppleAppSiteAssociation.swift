import Foundation

/// The `apple-app-site-association` document: which iOS apps open which paths of this domain.
///
/// Every app gets the modern `appIDs`/`components` keys (iOS 13+) and, beside them, the legacy
/// `appID`/`paths` keys that iOS 12 and older read; newer systems ignore the legacy pair.
package struct AppleAppSiteAssociation: Encodable, Equatable {
    /// Paths every app handles: where Firebase's email links land.
    package static let emailActionPaths: [(pattern: String, comment: String)] = [
        ("/__/auth/links*", "email action links (sign-in, password reset, email verification)"),
        ("/__/auth/action*", "email action handler"),
    ]

    package struct AppLinks: Encodable, Equatable {
        /// Must be present and empty for iOS 12 and older.
        package var apps: [String] = []
        package var details: [Detail]
    }

    package struct Detail: Encodable, Equatable {
        package var appIDs: [String]
        package var components: [Component]
        package var appID: String
        package var paths: [String]
    }

    package struct Component: Encodable, Equatable {
        package var path: String
        package var exclude: Bool?
        package var comment: String?

        package enum CodingKeys: String, CodingKey {
            case path = "/"
            case exclude
            case comment
        }
    }

    package struct AppList: Encodable, Equatable {
        package var apps: [String]
    }

    package var applinks: AppLinks
    package var webcredentials: AppList?
    package var appclips: AppList?

    /// With short links on, the app also opens them (`/<suffix>`) and legacy long links (`/?link=`):
    /// every path but the service's own, which the exclusions keep in the browser.
    package static let shortLinkComponents: [Component] =
        [
            Component(path: "/__/*", exclude: true, comment: "the service's pages and assets"),
            Component(path: "/.well-known/*", exclude: true),
            Component(path: "/v1/*", exclude: true, comment: "the service's APIs"),
            Component(path: "/identitytoolkit.googleapis.com/*", exclude: true),
            Component(path: "/securetoken.googleapis.com/*", exclude: true),
            Component(path: "/www.googleapis.com/*", exclude: true),
            Component(path: "/emulator/*", exclude: true),
        ] + ["/healthz", "/readyz", "/metrics", "/favicon.ico", "/apple-app-site-association"].map { Component(path: $0, exclude: true) }
        + [Component(path: "/*", comment: "short links and Dynamic Links long links")]

    /// The one description of what an app handles on this domain, in order (the first match
    /// decides): the email link paths, the app's own `paths` (`NOT ` excludes), and with short links
    /// on, every other path but the service's own. Apple's `components` and Android's Dynamic App
    /// Links rules (``AssetLinkStatement``) are both written from it, so the two files agree.
    package static func components(appPaths: [String] = [], claimsShortLinks: Bool) -> [Component] {
        var components = emailActionPaths.map { Component(path: $0.pattern, comment: $0.comment) }
        for pattern in appPaths {
            if pattern.hasPrefix("NOT ") {
                components.append(Component(path: String(pattern.dropFirst(4)), exclude: true))
            } else {
                components.append(Component(path: pattern))
            }
        }
        return components + (claimsShortLinks ? shortLinkComponents : [])
    }

    package init(apps: [AppleApp], claimsShortLinks: Bool = false) {
        let details = apps.map { app in
            let components = Self.components(appPaths: app.paths, claimsShortLinks: claimsShortLinks)
            // iOS 12's `paths` say the same in their own words.
            let legacyPaths = components.map { ($0.exclude == true ? "NOT " : "") + $0.path }
            return Detail(appIDs: [app.appID], components: components, appID: app.appID, paths: legacyPaths)
        }
        self.applinks = AppLinks(details: details)
        let credentialApps = apps.filter(\.webcredentials).map(\.appID)
        self.webcredentials = credentialApps.isEmpty ? nil : AppList(apps: credentialApps)
        let clips = apps.filter(\.appClip).map { "\($0.appID).Clip" }
        self.appclips = clips.isEmpty ? nil : AppList(apps: clips)
    }
}

/// Checks a hand-written `apple-app-site-association` file the way iOS reads it, and that it
/// names every configured Apple app (otherwise the app would never be offered the links).
package struct AppleAssociationFileValidator {
    package let source: String
    package var problems: [ConfigurationProblem] = []

    package init(source: String) {
        self.source = source
    }

    package mutating func validate(_ data: Data, configuredApps: [AppleApp]) {
        let root: JSONValue
        do {
            root = try JSONDecoder().decode(JSONValue.self, from: data)
        } catch {
            report("(file)", "is not valid JSON", expected: "a JSON object with an \"applinks\" key")
            return
        }
        guard case .object(let members) = root else {
            report("(file)", "holds \(root.typeName)", expected: "a JSON object with an \"applinks\" key")
            return
        }
        let knownKeys: Set = ["applinks", "webcredentials", "appclips", "activitycontinuation"]
        for key in members.keys.sorted() where !knownKeys.contains(key) {
            report(key, "unknown key", expected: "one of: " + knownKeys.sorted().joined(separator: ", "))
        }
        var listedAppIDs: [String] = []
        var coversEmailLinks = false
        if case .object(let applinks)? = members["applinks"] {
            guard case .list(let details)? = applinks["details"] else {
                report("applinks.details", "is missing or not a list", expected: "a list of {appIDs, components} objects")
                return
            }
            for (index, detail) in details.enumerated() {
                let key = "applinks.details[\(index)]"
                guard case .object(let entry) = detail else {
                    report(key, "is \(detail.typeName)", expected: "an object")
                    continue
                }
                var ids: [JSONValue] = []
                if case .list(let appIDs)? = entry["appIDs"] { ids += appIDs }
                if let appID = entry["appID"] { ids.append(appID) }
                if ids.isEmpty { report(key, "names no app", expected: "\"appIDs\": [\"TEAMID.bundle.id\"]") }
                for id in ids {
                    guard case .string(let appID) = id, Self.isAppID(appID) else {
                        report(key + ".appIDs", "holds a malformed app ID", expected: "\"TEAMID.bundle.id\" with a 10-character team ID")
                        continue
                    }
                    listedAppIDs.append(appID)
                }
                // The rules Apple applies (first matching component decides, `exclude` says no), as `doctor` checks them.
                coversEmailLinks = coversEmailLinks || AppleAssociationPatterns.handles(RoutePaths.emailLinks, entry: entry)
            }
        } else if members["applinks"] != nil {
            report("applinks", "is not an object", expected: "{\"details\": [...]}")
        }
        if !configuredApps.isEmpty && !coversEmailLinks {
            report("applinks.details", "no component covers /__/auth/links", expected: "a component {\"/\": \"/__/auth/links*\"}")
        }
        for app in configuredApps where !listedAppIDs.contains(app.appID) {
            report("applinks.details", "does not list the configured app \(app.appID)", expected: "an entry with \"appIDs\": [\"\(app.appID)\"]")
        }
    }

    private static func isAppID(_ value: String) -> Bool {
        guard let dot = value.firstIndex(of: ".") else { return false }
        return ConfigurationValidators.teamID(String(value[..<dot])) != nil
            && ConfigurationValidators.bundleID(String(value[value.index(after: dot)...])) != nil
    }

    private mutating func report(_ key: String, _ problem: String, expected: String) {
        problems.append(.init(source: source, key: key, problem: problem, expected: expected))
    }
}
