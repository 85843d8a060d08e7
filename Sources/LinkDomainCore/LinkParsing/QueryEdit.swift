/// A long link's query with some of its parameters set anew: every pair of those names removed,
/// each non-empty new value appended (percent-encoded), every other pair kept exactly as written
/// (the app hints, `efr`, the analytics a link was made with). What editing a link in the console
/// changes, and nothing else.
package enum QueryEdit {
    package static func setting(_ values: [(name: String, value: String)], in query: String) -> String {
        let names = Set(values.map(\.name))
        var pairs = query.split(separator: "&", omittingEmptySubsequences: true).filter { pair in
            let name = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false).first ?? pair
            return !names.contains(QueryString.percentDecode(name))
        }.map(String.init)
        for (name, value) in values where !value.isEmpty { pairs.append(name + "=" + ActionLinkEncoder.percentEncode(value)) }
        return pairs.joined(separator: "&")
    }
}
