import Foundation

/// Apple's rules for which paths an `applinks` entry handles: `components` in order, the first
/// whose `/` pattern matches decides (an `exclude` one says no); or legacy `paths`, where `NOT `
/// excludes. `*` matches any run of characters, `?` one.
package enum AppleAssociationPatterns {
    package static func handles(_ path: String, entry: [String: JSONValue]) -> Bool {
        if case .list(let components)? = entry["components"] {
            for component in components {
                guard case .object(let fields) = component, case .string(let pattern)? = fields["/"], matches(path, pattern) else { continue }
                return fields["exclude"] != .boolean(true)
            }
            return false
        }
        if case .list(let paths)? = entry["paths"] {
            for case .string(let pattern) in paths {
                if pattern.hasPrefix("NOT "), matches(path, String(pattern.dropFirst(4))) { return false }
                if matches(path, pattern) { return true }
            }
        }
        return false
    }

    package static func matches(_ text: String, _ pattern: String) -> Bool {
        let text = Array(text.utf8), pattern = Array(pattern.utf8)
        var t = 0, p = 0, starP = -1, starT = 0
        while t < text.count {
            if p < pattern.count, pattern[p] == UInt8(ascii: "?") || pattern[p] == text[t] {
                t += 1
                p += 1
            } else if p < pattern.count, pattern[p] == UInt8(ascii: "*") {
                starP = p
                starT = t
                p += 1
            } else if starP >= 0 {
                p = starP + 1
                starT += 1
                t = starT
            } else {
                return false
            }
        }
        while p < pattern.count, pattern[p] == UInt8(ascii: "*") { p += 1 }
        return p == pattern.count
    }
}
