extension LinkRouter {
    /// The continue URL with `apiKey`, `oobCode`, `mode`, `lang` (and `tenantId`) added to its own
    /// query, which is kept as it is, as Firebase's hosted handler does for sign-in links.
    public static func signInContinuation(_ continueURL: String, link: ActionLink) -> String {
        let utf8 = continueURL.utf8
        let hash = utf8.firstIndex(of: UInt8(ascii: "#")) ?? utf8.endIndex
        let base = utf8[..<hash]
        var result: [UInt8] = []
        result.reserveCapacity(utf8.count + 192)
        result.append(contentsOf: base)
        if !base.contains(UInt8(ascii: "?")) {
            result.append(UInt8(ascii: "?"))
        } else if let last = base.last, last != UInt8(ascii: "?") && last != UInt8(ascii: "&") {
            result.append(UInt8(ascii: "&"))
        }
        var first = true
        for (name, value) in [("apiKey", link.apiKey), ("oobCode", link.oobCode), ("mode", link.mode.rawValue), ("lang", link.languageCode ?? "en"),
                              ("tenantId", link.tenantID)] {
            guard let value else { continue }
            if !first { result.append(UInt8(ascii: "&")) }
            first = false
            result.append(contentsOf: name.utf8)
            result.append(UInt8(ascii: "="))
            ActionLinkEncoder.percentEncode(value, into: &result)
        }
        result.append(contentsOf: utf8[hash...])
        return String(decoding: result, as: UTF8.self)
    }
}
