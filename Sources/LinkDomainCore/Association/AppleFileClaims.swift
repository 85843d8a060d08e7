import Foundation

/// What a served `apple-app-site-association` claims for each app, read from the file itself (a
/// hand-written file included): its `applinks` components (or `paths`) as written, `NOT` before an
/// excluded one, then `webcredentials` and `appclips` where it lists the app. The console shows
/// these, so that what it says an app opens is what iPhones will read.
package struct AppleFileClaims: Equatable {
    package var appID: String
    package var claims: [String]

    package static func of(_ bytes: [UInt8]) -> [AppleFileClaims] {
        guard case .object(let root)? = try? JSONDecoder().decode(JSONValue.self, from: Data(bytes)) else { return [] }
        var order: [String] = []
        var claims: [String: [String]] = [:]
        func add(_ appID: String, _ claim: String) {
            if claims[appID] == nil { order.append(appID) }
            claims[appID, default: []].append(claim)
        }
        if case .object(let applinks)? = root["applinks"], case .list(let details)? = applinks["details"] {
            for case .object(let detail) in details {
                var ids = strings(detail["appIDs"])
                if ids.isEmpty, case .string(let id)? = detail["appID"] { ids = [id] }
                let patterns = paths(of: detail)
                for id in ids {
                    if patterns.isEmpty { add(id, "(no paths)") }
                    for pattern in patterns { add(id, pattern) }
                }
            }
        }
        for section in ["webcredentials", "appclips"] {
            guard case .object(let entry)? = root[section] else { continue }
            for id in strings(entry["apps"]) { add(id, section) }
        }
        return order.map { AppleFileClaims(appID: $0, claims: claims[$0] ?? []) }
    }

    private static func strings(_ value: JSONValue?) -> [String] {
        guard case .list(let items)? = value else { return [] }
        return items.compactMap { if case .string(let text) = $0 { text } else { nil } }
    }

    /// Components (iOS 13 and later) when present, else the older `paths`.
    private static func paths(of detail: [String: JSONValue]) -> [String] {
        if case .list(let components)? = detail["components"] {
            return components.compactMap { component -> String? in
                guard case .object(let fields) = component else { return nil }
                var text = if case .string(let path)? = fields["/"] { path } else { "*" }
                if case .object(let query)? = fields["?"] {
                    text +=
                        "?"
                        + query.keys.sorted().map { key in "\(key)=\(query[key].flatMap { if case .string(let v) = $0 { v } else { nil } } ?? "*")" }
                        .joined(separator: "&")
                }
                if case .string(let fragment)? = fields["#"] { text += "#" + fragment }
                if case .boolean(true)? = fields["exclude"] { text = "NOT " + text }
                return text
            }
        }
        return strings(detail["paths"])
    }
}
