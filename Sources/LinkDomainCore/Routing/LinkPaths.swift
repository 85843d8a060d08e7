/// Which request paths may name a short link: `/<suffix>` with a suffix that could exist, and
/// never one of the single-segment paths the service serves itself. The event loop and the
/// router's catch-all both ask here, so a path is a short link either way or neither.
package enum ShortLinkPath {
    /// The suffix `path` names, if it may name one.
    package static func suffix(ofPath path: Substring) -> Substring? {
        guard path.utf8.first == UInt8(ascii: "/") else { return nil }
        let suffix = path.dropFirst()
        guard SuffixGenerator.isPlausible(suffix),
            !RoutePaths.reservedSingleSegments.contains(where: { $0.utf8.count == path.utf8.count && $0.utf8.elementsEqual(path.utf8) })
        else { return nil }
        return suffix
    }
}

/// Which requests off the email-link paths may carry a Dynamic Links long link (`/?link=...`,
/// `/any/path?link=...&apn=...`): the others are not links at all, and answered 404.
package enum LegacyLinkQuery {
    package static func mayCarryLink(_ query: Substring?) -> Bool {
        let parameters = QueryString(query ?? "")
        return parameters["link"] != nil || parameters["deep_link_id"] != nil
    }
}
