import LinkDomainCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// The visitors a thread has classified, kept by their `User-Agent` and `Sec-CH-UA-Platform`.
/// Classification is a pure function of the two, and the browsers that click links send a few
/// hundred distinct user agents between them: finding one again (a hash of its bytes and a
/// comparison) costs less than half of scanning it for some fifty markers (BENCHMARKS.md, "Below
/// the answer").
///
/// Each thread holds its own: no lock on the path, bounded by starting over when full, and a user
/// agent longer than any browser's is classified every time instead of kept (a client sending a
/// new long one per request would otherwise fill the table with its bytes). The thread's last
/// visitor is compared before the table is hashed: one client's requests often come in a row (a
/// connection's, a mail scanner's run through every link of a mail), and comparing the bytes costs
/// a tenth of hashing them.
final class KnownVisitors {
    struct Key: Hashable {
        var userAgent: String?
        var platformHint: String?
    }

    /// Per thread; each entry holds its user agent's bytes (at most ``longestKept``).
    static let capacity = 1024
    static let longestKept = 512
    private var visitors: [Key: Visitor] = [:]
    private var last: (key: Key, visitor: Visitor)?
    var count: Int { visitors.count }

    func visitor(userAgent: String?, platformHint: String?) -> Visitor {
        guard (userAgent?.utf8.count ?? 0) + (platformHint?.utf8.count ?? 0) <= Self.longestKept else {
            return PlatformClassifier.classify(userAgent: userAgent, platformHint: platformHint)
        }
        if let last, last.key.userAgent == userAgent, last.key.platformHint == platformHint { return last.visitor }
        let key = Key(userAgent: userAgent, platformHint: platformHint)
        let visitor = known(key)
        last = (key, visitor)
        return visitor
    }

    /// The thread's last visitor, when `userAgent` and `platformHint` are its fields byte for byte:
    /// the reader of a connection's bytes asks this before making strings of them, which cost a
    /// short link's click more than comparing.
    func lastVisitor(userAgent: UnsafeRawBufferPointer?, platformHint: UnsafeRawBufferPointer?) -> Visitor? {
        guard var last, Self.same(&last.key.userAgent, userAgent), Self.same(&last.key.platformHint, platformHint) else { return nil }
        return last.visitor
    }

    private static func same(_ text: inout String?, _ bytes: UnsafeRawBufferPointer?) -> Bool {
        switch (text, bytes) {
        case (nil, nil):
            return true
        case (.some, .some(let bytes)):
            return text!.withUTF8 { kept in
                guard kept.count == bytes.count else { return false }
                guard let keptStart = kept.baseAddress, let start = bytes.baseAddress else { return true }
                return memcmp(keptStart, start, bytes.count) == 0
            }
        default:
            return false
        }
    }

    private func known(_ key: Key) -> Visitor {
        if let known = visitors[key] { return known }
        let visitor = PlatformClassifier.classify(userAgent: key.userAgent, platformHint: key.platformHint)
        if visitors.count >= Self.capacity { visitors.removeAll(keepingCapacity: true) }
        visitors[key] = visitor
        return visitor
    }
}

/// Only ever used on the thread that made it (``PerThread/current``).
extension KnownVisitors: @unchecked Sendable {}
