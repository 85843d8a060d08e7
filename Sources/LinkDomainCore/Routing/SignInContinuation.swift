extension LinkRouter {
    /// The continue URL with `apiKey`, `oobCode`, `mode`, `lang` (and `tenantId`) added to its own
    /// query, which is kept as it is, as Firebase's hosted handler does for sign-in links.
    public static func signInContinuation(_ continueURL: String, link: ActionLink) -> String {
        var continueURL = continueURL
        let language = link.languageCode ?? "en"
        return continueURL.withUTF8 { url in
            let hash = url.firstIndex(of: UInt8(ascii: "#")) ?? url.count
            // Every byte of a value takes at most three; each parameter adds its name, `=` and `&`.
            let values =
                (link.apiKey?.utf8.count ?? 0) + link.oobCode.utf8.count + link.mode.rawValue.utf8.count + language.utf8.count
                + (link.tenantID?.utf8.count ?? 0)
            let capacity = url.count + 1 + 2 * 5 + "apiKeyoobCodemodelangtenantId".utf8.count + 3 * values
            return String(unsafeUninitializedCapacity: capacity) { output in
                var written = ContinuationBytes(output: output)
                written.append(UnsafeBufferPointer(rebasing: url[..<hash]))
                if !url[..<hash].contains(UInt8(ascii: "?")) {
                    written.append(UInt8(ascii: "?"))
                } else if hash > 0, url[hash - 1] != UInt8(ascii: "?") && url[hash - 1] != UInt8(ascii: "&") {
                    written.append(UInt8(ascii: "&"))
                }
                written.parameter("apiKey", link.apiKey)
                written.parameter("oobCode", link.oobCode)
                written.parameter("mode", link.mode.rawValue)
                written.parameter("lang", language)
                written.parameter("tenantId", link.tenantID)
                written.append(UnsafeBufferPointer(rebasing: url[hash...]))
                return written.count
            }
        }
    }
}

/// The continuation's bytes, written straight into the string's storage: its capacity is counted
/// for the worst case before, so every write fits.
private struct ContinuationBytes {
    let output: UnsafeMutableBufferPointer<UInt8>
    var count = 0
    private var hasParameter = false

    init(output: UnsafeMutableBufferPointer<UInt8>) {
        self.output = output
    }

    mutating func append(_ byte: UInt8) {
        output[count] = byte
        count += 1
    }

    mutating func append(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard let source = bytes.baseAddress, let target = output.baseAddress else { return }
        assert(count + bytes.count <= output.count, "the continuation's capacity was counted short")
        (target + count).update(from: source, count: bytes.count)
        count += bytes.count
    }

    /// `name=value`, the value percent-encoded, after a `&` when a parameter came before.
    mutating func parameter(_ name: StaticString, _ value: String?) {
        guard var value else { return }
        if hasParameter { append(UInt8(ascii: "&")) }
        hasParameter = true
        name.withUTF8Buffer { append($0) }
        append(UInt8(ascii: "="))
        value.withUTF8 { bytes in
            for byte in bytes {
                if ActionLinkEncoder.isUnreserved(byte) {
                    append(byte)
                } else {
                    append(UInt8(ascii: "%"))
                    append(ActionLinkEncoder.hexDigits[Int(byte >> 4)])
                    append(ActionLinkEncoder.hexDigits[Int(byte & 0xF)])
                }
            }
        }
    }
}
