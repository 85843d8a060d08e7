/// Which request paths may name a short link: `/<suffix>` with a suffix that could exist, and
/// never one of the single-segment paths the service serves itself. The event loop and the
/// router's catch-all both ask here, so a path is a short link either way or neither.
package enum ShortLinkPath {
    /// The suffix `path` names, if it may name one.
    package static func suffix(ofPath path: Substring) -> Substring? {
        var path = path
        return path.withUTF8 { namesSuffix(UnsafeRawBufferPointer($0)) } ? path.dropFirst() : nil
    }

    /// Whether the path's bytes name a suffix: the event loop asks for every one-segment path it
    /// is sent, before any string is made of it.
    package static func namesSuffix(_ path: UnsafeRawBufferPointer) -> Bool {
        guard path.first == UInt8(ascii: "/"), SuffixGenerator.isPlausible(UnsafeRawBufferPointer(rebasing: path.dropFirst())) else {
            return false
        }
        return !reserved.contains { $0.count == path.count && $0.elementsEqual(path) }
    }

    /// ``RoutePaths/reservedSingleSegments``' bytes, compared without making a string of the path.
    private static let reserved = RoutePaths.reservedSingleSegments.map { Array($0.utf8) }
}

/// Which requests off the email-link paths may carry a Dynamic Links long link (`/?link=...`,
/// `/any/path?link=...&apn=...`): the others are not links at all, and answered 404.
package enum LegacyLinkQuery {
    package static func mayCarryLink(_ query: Substring?) -> Bool {
        let parameters = QueryString(query ?? "")
        return parameters["link"] != nil || parameters["deep_link_id"] != nil
    }
}
