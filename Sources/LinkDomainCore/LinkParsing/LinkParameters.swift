#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// The parameters links are read for (the email action's, the nested links', the Dynamic Links
/// hints and the router's own), found in one pass over a query: each known name's first value as
/// a byte range of the query, percent-decoded only when read. Other names cost a length check.
///
/// Splits as ``QueryString`` does (on `&`, then at the first `=`; a name with an escape is
/// compared decoded), so the two agree on every query; a click reads its link this way because
/// looking names up one at a time cost more than the rest of the parse.
package struct LinkParameters: Sendable {
    package enum Name: Int, CaseIterable, Sendable {
        case deepLinkID, link
        case mode, oobCode, apiKey, continueURL, languageCode, tenantID, linkDomain
        case androidPackageName, androidFallbackURL, androidMinimumVersion
        case iOSBundleID, iOSFallbackURL, iOSAppStoreID, iOSMinimumVersion, iPadBundleID, iPadFallbackURL, iOSCustomScheme
        case otherPlatformFallbackURL, skipPreviewPage, socialTitle, socialDescription, socialImageURL
        /// The router's own: `d=1` asks for the debug page, `web=1` to stay in the browser.
        case debugPage, preferWeb

        /// The name in links.
        package var wireName: String {
            switch self {
            case .deepLinkID: "deep_link_id"
            case .link: "link"
            case .mode: "mode"
            case .oobCode: "oobCode"
            case .apiKey: "apiKey"
            case .continueURL: "continueUrl"
            case .languageCode: "lang"
            case .tenantID: "tenantId"
            case .linkDomain: "linkDomain"
            case .androidPackageName: "apn"
            case .androidFallbackURL: "afl"
            case .androidMinimumVersion: "amv"
            case .iOSBundleID: "ibi"
            case .iOSFallbackURL: "ifl"
            case .iOSAppStoreID: "isi"
            case .iOSMinimumVersion: "imv"
            case .iPadBundleID: "ipbi"
            case .iPadFallbackURL: "ipfl"
            case .iOSCustomScheme: "ius"
            case .otherPlatformFallbackURL: "ofl"
            case .skipPreviewPage: "efr"
            case .socialTitle: "st"
            case .socialDescription: "sd"
            case .socialImageURL: "si"
            case .debugPage: "d"
            case .preferWeb: "web"
            }
        }

        fileprivate var bit: UInt32 { 1 << UInt32(rawValue) }

        /// The Dynamic Links hints (`apn` to `si`).
        fileprivate static let hints: UInt32 = allCases.filter { $0.rawValue >= androidPackageName.rawValue && $0.rawValue <= socialImageURL.rawValue }
            .reduce(0) { $0 | $1.bit }
    }

    private let query: QueryBytes
    /// A bit per ``Name`` found, and its value's offsets in the query (up to 32 names).
    private let found: UInt32
    private let lowerBounds: SIMD32<UInt32>
    private let upperBounds: SIMD32<UInt32>

    /// A query, as it follows the `?`.
    package init(_ query: Substring) {
        self.init(QueryBytes(query))
    }

    /// The query of a URL or of a path and query: what follows the first `?`, up to any `#`.
    package init(url: String) {
        var url = url
        let bounds = url.withUTF8 { bytes -> Range<Int> in
            guard let mark = QueryBytes.first(UInt8(ascii: "?"), in: 0..<bytes.count, of: bytes) else { return 0..<0 }
            return (mark + 1)..<(QueryBytes.first(UInt8(ascii: "#"), in: (mark + 1)..<bytes.count, of: bytes) ?? bytes.count)
        }
        self.init(QueryBytes(source: url, bounds: bounds))
    }

    package init(_ query: QueryBytes) {
        // Offsets are kept in 32 bits: a longer query (never seen; heads stop at 16 KB) reads as empty.
        self.query = query.bounds.count <= Int(Int32.max) ? query : QueryBytes(source: "", bounds: 0..<0)
        var found: UInt32 = 0
        var lowerBounds = SIMD32<UInt32>(), upperBounds = SIMD32<UInt32>()
        self.query.withBytes { bytes in
            QueryBytes.forEachParameter(in: bytes) { name, value in
                guard let name = Self.name(UnsafeBufferPointer(rebasing: bytes[name])), found & name.bit == 0 else { return }
                found |= name.bit
                lowerBounds[name.rawValue] = UInt32(truncatingIfNeeded: value.lowerBound)
                upperBounds[name.rawValue] = UInt32(truncatingIfNeeded: value.upperBound)
            }
        }
        self.found = found
        self.lowerBounds = lowerBounds
        self.upperBounds = upperBounds
    }

    /// Whether `name` is present, with any value.
    package func contains(_ name: Name) -> Bool {
        found & name.bit != 0
    }

    /// Whether any Dynamic Links hint is present.
    package var hasHints: Bool {
        found & Name.hints != 0
    }

    /// The first value of `name`, decoded.
    package subscript(name: Name) -> String? {
        guard contains(name) else { return nil }
        let value = Int(lowerBounds[name.rawValue])..<Int(upperBounds[name.rawValue])
        return query.withBytes { QueryString.percentDecode(UnsafeBufferPointer(rebasing: $0[value])) }
    }

    /// The first value of `name` as form text (`+` a space): how Google reads the text a person
    /// wrote into a link (`st`, `sd`), which `urlencode` in Python, Java and PHP writes with `+`.
    package func text(_ name: Name) -> String? {
        guard contains(name) else { return nil }
        let value = Int(lowerBounds[name.rawValue])..<Int(upperBounds[name.rawValue])
        return query.withBytes { QueryString.formDecode(UnsafeBufferPointer(rebasing: $0[value])) }
    }

    // MARK: Recognising names

    /// A name of up to 16 bytes as two integers and its length: comparing it with a known name is
    /// three integer comparisons.
    private struct Key: Equatable {
        package var head: UInt64 = 0
        package var tail: UInt64 = 0
        package var count: Int

        package init?(_ bytes: UnsafeBufferPointer<UInt8>) {
            guard bytes.count <= 16 else { return nil }
            count = bytes.count
            // The table is made by this same function, so byte order does not matter.
            var words: (UInt64, UInt64) = (0, 0)
            withUnsafeMutableBytes(of: &words) { $0.copyMemory(from: UnsafeRawBufferPointer(bytes)) }
            (head, tail) = words
        }
    }

    /// Every known name, by its length.
    private static let namesByLength: [[(key: Key, name: Name)]] = {
        var table = [[(key: Key, name: Name)]](repeating: [], count: 17)
        for name in Name.allCases {
            var text = name.wireName
            text.withUTF8 { bytes in
                if let key = Key(bytes) { table[key.count].append((key, name)) }
            }
        }
        return table
    }()

    private static func name(_ bytes: UnsafeBufferPointer<UInt8>) -> Name? {
        guard let base = bytes.baseAddress, memchr(base, Int32(UInt8(ascii: "%")), bytes.count) != nil else { return known(bytes) }
        var decoded = QueryString.percentDecode(bytes)
        return decoded.withUTF8 { known($0) }
    }

    private static func known(_ bytes: UnsafeBufferPointer<UInt8>) -> Name? {
        guard let key = Key(bytes) else { return nil }
        for entry in namesByLength[key.count] where entry.key == key { return entry.name }
        return nil
    }
}
