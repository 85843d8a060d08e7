extension LinkRouter {
    /// The continue URL with `apiKey`, `oobCode`, `mode`, `lang` (and `tenantId`) added to its own
    /// query, which is kept as it is, as Firebase's hosted handler does for sign-in links.
    public static func signInContinuation(_ continueURL: String, link: ActionLink) -> String {
        var continueURL = continueURL
        return continueURL.withUTF8 { url in
            let hash = url.firstIndex(of: UInt8(ascii: "#")) ?? url.count
            let parameters: [(StaticString, String?)] = [
                ("apiKey", link.apiKey), ("oobCode", link.oobCode), ("mode", link.mode.rawValue),
                ("lang", link.languageCode ?? "en"), ("tenantId", link.tenantID),
            ]
            // Written straight into the string's storage: each byte of a value takes at most three.
            let capacity = url.count + 1 + parameters.reduce(0) { $0 + $1.0.utf8CodeUnitCount + 2 + 3 * ($1.1?.utf8.count ?? 0) }
            return String(unsafeUninitializedCapacity: capacity) { output in
                var count = 0
                func append(_ byte: UInt8) {
                    output[count] = byte
                    count += 1
                }
                for index in 0..<hash { append(url[index]) }
                if !url[..<hash].contains(UInt8(ascii: "?")) {
                    append(UInt8(ascii: "?"))
                } else if hash > 0, url[hash - 1] != UInt8(ascii: "?") && url[hash - 1] != UInt8(ascii: "&") {
                    append(UInt8(ascii: "&"))
                }
                var first = true
                for (name, value) in parameters {
                    guard let value else { continue }
                    if !first { append(UInt8(ascii: "&")) }
                    first = false
                    name.withUTF8Buffer { for byte in $0 { append(byte) } }
                    append(UInt8(ascii: "="))
                    for byte in value.utf8 {
                        if ActionLinkEncoder.isUnreserved(byte) {
                            append(byte)
                        } else {
                            append(UInt8(ascii: "%"))
                            append(ActionLinkEncoder.hexDigits[Int(byte >> 4)])
                            append(ActionLinkEncoder.hexDigits[Int(byte & 0xF)])
                        }
                    }
                }
                for index in hash..<url.count { append(url[index]) }
                return count
            }
        }
    }
}
