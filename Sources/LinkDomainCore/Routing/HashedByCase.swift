// A raw-valued enum's default `Hashable` and `Equatable` come from `RawRepresentable`: they hash
// and compare the raw strings. These three key tables that every click touches (the event
// tallies, the metrics' counters, the short-link redirects already decided), where hashing three
// strings was most of a table's lookup; here each hashes and compares as the case it is.
public protocol HashedByCase: RawRepresentable, Hashable where RawValue: Hashable {
    /// The case's place in the declaration (and in `allCases`), for a table indexed by case.
    var caseNumber: Int { get }
}

extension HashedByCase {
    // More specific than `RawRepresentable`'s own, so these are the ones the enums below use.
    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.caseNumber == rhs.caseNumber }
    public func hash(into hasher: inout Hasher) { hasher.combine(caseNumber) }
}

extension Platform: HashedByCase {
    public var caseNumber: Int {
        switch self {
        case .iOS: 0
        case .iPadOS: 1
        case .android: 2
        case .desktop: 3
        case .bot: 4
        }
    }
}

extension InAppBrowser: HashedByCase {
    public var caseNumber: Int {
        switch self {
        case .gmail: 0
        case .outlook: 1
        case .googleApp: 2
        case .facebook: 3
        case .instagram: 4
        case .other: 5
        }
    }
}

extension LinkEvent: HashedByCase {
    public var caseNumber: Int {
        switch self {
        case .click: 0
        case .redirectToApp: 1
        case .redirectToStore: 2
        case .redirectToFallback: 3
        case .appInstall: 4
        case .appFirstOpen: 5
        case .appReOpen: 6
        }
    }
}
