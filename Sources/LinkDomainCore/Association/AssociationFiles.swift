import NIOCore
import Foundation

/// A JSON document generated once at start and served from memory, with its validator.
public struct StaticJSONDocument: Sendable, Equatable {
    public let bytes: [UInt8]
    /// A strong entity tag derived from the bytes, quoted as HTTP wants it.
    public let etag: String
    /// The bytes as served, made once.
    package let body: ByteBuffer

    public init(bytes: [UInt8]) {
        self.bytes = bytes
        self.body = ByteBuffer(bytes: bytes)
        self.etag = "\"\(Self.fnv1a64Hex(bytes))\""
    }

    public var text: String { String(decoding: bytes, as: UTF8.self) }

    /// FNV-1a: a fast, stable content hash; the tag only needs to change when the bytes do.
    private static func fnv1a64Hex(_ bytes: [UInt8]) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01b3
        }
        let hex = String(hash, radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex
    }
}

/// The association files this domain serves, built from the configuration.
public struct AssociationFiles: Sendable, Equatable {
    /// Apple stops reading `apple-app-site-association` past 128 KB.
    public static let appleSizeLimit = 128 * 1024

    public let apple: StaticJSONDocument
    public let android: StaticJSONDocument

    /// Generates both files, or reads the configured hand-written Apple file, and checks them.
    public init(configuration: LinkDomainConfiguration) throws(ConfigurationError) {
        let appleBytes: [UInt8]
        if let path = configuration.apple.associationFile {
            guard let data = FileManager.default.contents(atPath: path) else {
                throw ConfigurationError(problems: [
                    .init(
                        source: "configuration", key: "apple.associationFile",
                        problem: "\(path) cannot be read", expected: "a readable apple-app-site-association file")
                ])
            }
            var validator = AppleAssociationFileValidator(source: path)
            validator.validate(data, configuredApps: configuration.apple.apps)
            if !validator.problems.isEmpty { throw ConfigurationError(problems: validator.problems) }
            appleBytes = Array(data)
        } else {
            appleBytes = Self.encode(AppleAppSiteAssociation(apps: configuration.apple.apps, claimsShortLinks: !configuration.shortLinks.apiKeys.isEmpty))
        }
        if appleBytes.count > Self.appleSizeLimit {
            throw ConfigurationError(problems: [
                .init(
                    source: configuration.apple.associationFile ?? "configuration", key: "apple-app-site-association",
                    problem: "is \(appleBytes.count) bytes, over Apple's limit",
                    expected: "at most \(Self.appleSizeLimit) bytes (128 KB): fewer apps or paths")
            ])
        }
        self.apple = StaticJSONDocument(bytes: appleBytes)
        self.android = StaticJSONDocument(
            bytes: Self.encode(
                AssetLinkStatement.statements(
                    for: configuration.android.apps,
                    claimsShortLinks: !configuration.shortLinks.apiKeys.isEmpty)))
    }

    /// Stable, readable JSON: sorted keys, unescaped slashes (paths read as written), final newline.
    package static func encode(_ value: some Encodable) -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        // Encoding these plain structs cannot fail.
        return Array(try! encoder.encode(value)) + [UInt8(ascii: "\n")]
    }
}
