/// One Digital Asset Links statement: `package_name` may open every URL of this domain.
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

    var relation = ["delegate_permission/common.handle_all_urls"]
    var target: Target

    /// The statements for `assetlinks.json`, one per app, in configuration order.
    static func statements(for apps: [AndroidApp]) -> [AssetLinkStatement] {
        apps.map { AssetLinkStatement(target: Target(packageName: $0.packageName, fingerprints: $0.fingerprints)) }
    }
}
