/// One Digital Asset Links statement: `package_name` may open URLs of this domain; which ones,
/// Android 15's Dynamic App Links read from `relation_extensions` (older Android versions take
/// the whole host, and the app's intent filters narrow it).
package struct AssetLinkStatement: Encodable, Equatable {
    package struct Target: Encodable, Equatable {
        package var namespace = "android_app"
        package var packageName: String
        package var fingerprints: [String]

        package enum CodingKeys: String, CodingKey {
            case namespace
            case packageName = "package_name"
            case fingerprints = "sha256_cert_fingerprints"
        }
    }

    /// `dynamic_app_link_components`: the same rules, in the same order, as the Apple file's `components`.
    package struct HandleAllURLs: Encodable, Equatable {
        package var components: [AppleAppSiteAssociation.Component]

        package enum CodingKeys: String, CodingKey {
            case components = "dynamic_app_link_components"
        }
    }

    package struct RelationExtensions: Encodable, Equatable {
        package var handleAllURLs: HandleAllURLs

        package enum CodingKeys: String, CodingKey {
            case handleAllURLs = "delegate_permission/common.handle_all_urls"
        }
    }

    package var relation = ["delegate_permission/common.handle_all_urls"]
    package var relationExtensions: RelationExtensions
    package var target: Target

    package enum CodingKeys: String, CodingKey {
        case relation
        case relationExtensions = "relation_extensions"
        case target
    }

    /// Android's Credential Manager shares this domain's passwords and passkeys with an app whose
    /// statement holds it (docs/wire-formats.md, "Passkeys and password managers").
    package static let getLoginCredentials = "delegate_permission/common.get_login_creds"

    /// The statements for `assetlinks.json`, one per app, in configuration order.
    package static func statements(for apps: [AndroidApp], claimsShortLinks: Bool = false) -> [AssetLinkStatement] {
        let rules = RelationExtensions(handleAllURLs: HandleAllURLs(components: AppleAppSiteAssociation.components(claimsShortLinks: claimsShortLinks)))
        return apps.map { app in
            AssetLinkStatement(
                relation: ["delegate_permission/common.handle_all_urls"] + (app.webcredentials ? [getLoginCredentials] : []),
                relationExtensions: rules, target: Target(packageName: app.packageName, fingerprints: app.fingerprints))
        }
    }
}
