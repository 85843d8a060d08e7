/// One Digital Asset Links statement: `package_name` may open URLs of this domain; which ones,
/// Android 15's Dynamic App Links read from `relation_extensions` (older Android versions take
/// the whole host, and the app's intent filters narrow it).
struct AssetLinkStatement: Encodable, Equatable {
    struct Target: Encodable, Equatable {
        var namespace = "android_app"
        var packageName: String
        var fingerprints: [String]

        enum CodingKeys: String, CodingKey {
            case namespace
            case packageName = "package_name"
            case fingerprints = "sha256_cert_fingerprints"
        }
    }

    /// `dynamic_app_link_components`: the same rules, in the same order, as the Apple file's `components`.
    struct HandleAllURLs: Encodable, Equatable {
        var components: [AppleAppSiteAssociation.Component]

        enum CodingKeys: String, CodingKey {
            case components = "dynamic_app_link_components"
        }
    }

    struct RelationExtensions: Encodable, Equatable {
        var handleAllURLs: HandleAllURLs

        enum CodingKeys: String, CodingKey {
            case handleAllURLs = "delegate_permission/common.handle_all_urls"
        }
    }

    var relation = ["delegate_permission/common.handle_all_urls"]
    var relationExtensions: RelationExtensions
    var target: Target

    enum CodingKeys: String, CodingKey {
        case relation
        case relationExtensions = "relation_extensions"
        case target
    }

    /// The statements for `assetlinks.json`, one per app, in configuration order.
    static func statements(for apps: [AndroidApp], claimsShortLinks: Bool = false) -> [AssetLinkStatement] {
        let rules = RelationExtensions(handleAllURLs: HandleAllURLs(components: AppleAppSiteAssociation.components(claimsShortLinks: claimsShortLinks)))
        return apps.map { AssetLinkStatement(relationExtensions: rules, target: Target(packageName: $0.packageName, fingerprints: $0.fingerprints)) }
    }
}
