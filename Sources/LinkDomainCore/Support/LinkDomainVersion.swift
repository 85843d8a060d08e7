/// The release this source is: `linkdomain --version` and the console's overview show it.
/// Changed with each release.
public enum LinkDomainVersion {
    public static let current = "0.10.0"
}
