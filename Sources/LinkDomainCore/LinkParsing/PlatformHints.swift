/// The Dynamic Links parameters that say how to open a link on each platform.
///
/// Kept in one shared, immutable reference (nil for none): most links carry no hint, and a click
/// copies and destroys its link several times, each copy retaining and releasing every string
/// field of a value held inline.
public struct PlatformHints: Sendable, Equatable {
    /// The hints themselves.
    package struct Fields: Sendable, Equatable {
        /// `apn`, `afl`, `amv`.
        package var androidPackageName: String?
        package var androidFallbackURL: String?
        package var androidMinimumVersion: Int?
        /// `ibi`, `ifl`, `isi`, `imv`, `ipbi`, `ipfl`, `ius`.
        package var iOSBundleID: String?
        package var iOSFallbackURL: String?
        package var iOSAppStoreID: String?
        package var iOSMinimumVersion: String?
        package var iPadBundleID: String?
        package var iPadFallbackURL: String?
        package var iOSCustomScheme: String?
        /// `ofl`: where other platforms go.
        package var otherPlatformFallbackURL: String?
        /// `efr=1`: skip the preview page.
        package var skipPreviewPage: Bool = false
        /// `st`, `sd`, `si`.
        package var socialTitle: String?
        package var socialDescription: String?
        package var socialImageURL: String?
    }

    private final class Storage: Sendable {
        package let fields: Fields

        package init(_ fields: Fields) {
            self.fields = fields
        }
    }

    private var storage: Storage?

    public init() {}

    package init(_ fields: Fields) {
        storage = fields == Fields() ? nil : Storage(fields)
    }

    /// Every hint at once. Setting one hint makes a new reference: hints are set once per link.
    package var fields: Fields {
        get { storage?.fields ?? Fields() }
        set { self = PlatformHints(newValue) }
    }

    /// No hint at all.
    public var isEmpty: Bool {
        storage == nil
    }

    public static func == (lhs: PlatformHints, rhs: PlatformHints) -> Bool {
        lhs.storage === rhs.storage || lhs.fields == rhs.fields
    }

    /// `apn`, `afl`, `amv`.
    public var androidPackageName: String? {
        get { storage?.fields.androidPackageName }
        set { fields.androidPackageName = newValue }
    }
    public var androidFallbackURL: String? {
        get { storage?.fields.androidFallbackURL }
        set { fields.androidFallbackURL = newValue }
    }
    public var androidMinimumVersion: Int? {
        get { storage?.fields.androidMinimumVersion }
        set { fields.androidMinimumVersion = newValue }
    }
    /// `ibi`, `ifl`, `isi`, `imv`, `ipbi`, `ipfl`, `ius`.
    public var iOSBundleID: String? {
        get { storage?.fields.iOSBundleID }
        set { fields.iOSBundleID = newValue }
    }
    public var iOSFallbackURL: String? {
        get { storage?.fields.iOSFallbackURL }
        set { fields.iOSFallbackURL = newValue }
    }
    public var iOSAppStoreID: String? {
        get { storage?.fields.iOSAppStoreID }
        set { fields.iOSAppStoreID = newValue }
    }
    public var iOSMinimumVersion: String? {
        get { storage?.fields.iOSMinimumVersion }
        set { fields.iOSMinimumVersion = newValue }
    }
    public var iPadBundleID: String? {
        get { storage?.fields.iPadBundleID }
        set { fields.iPadBundleID = newValue }
    }
    public var iPadFallbackURL: String? {
        get { storage?.fields.iPadFallbackURL }
        set { fields.iPadFallbackURL = newValue }
    }
    public var iOSCustomScheme: String? {
        get { storage?.fields.iOSCustomScheme }
        set { fields.iOSCustomScheme = newValue }
    }
    /// `ofl`: where other platforms go.
    public var otherPlatformFallbackURL: String? {
        get { storage?.fields.otherPlatformFallbackURL }
        set { fields.otherPlatformFallbackURL = newValue }
    }
    /// `efr=1`: skip the preview page.
    public var skipPreviewPage: Bool {
        get { storage?.fields.skipPreviewPage ?? false }
        set { fields.skipPreviewPage = newValue }
    }
    /// `st`, `sd`, `si`.
    public var socialTitle: String? {
        get { storage?.fields.socialTitle }
        set { fields.socialTitle = newValue }
    }
    public var socialDescription: String? {
        get { storage?.fields.socialDescription }
        set { fields.socialDescription = newValue }
    }
    public var socialImageURL: String? {
        get { storage?.fields.socialImageURL }
        set { fields.socialImageURL = newValue }
    }
}
