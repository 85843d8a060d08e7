import LinkDomainCore
import NIOHPACK

/// The rules a client's HTTP/2 header block must keep (RFC 9113 §8.2 and §8.3; docs/design/first-click.md,
/// "Malformed HTTP/2 requests"), checked by ``HTTP2StreamAnswerer`` for every stream's HEADERS. NIO's handler is set
/// not to check header blocks, because it checks both directions or neither, and its check of
/// each of our responses (fields we made ourselves, the security headers included) cost about a
/// tenth of every HTTP/2 request (BENCHMARKS.md, "The link's own work, and HTTP/2 without a second check").
///
/// A request head: pseudo-header fields first, each of `:method`, `:scheme`, `:authority` and
/// `:path` at most once and no other (no `:protocol`: extended CONNECT is not offered), `:method`,
/// `:scheme` and a non-empty `:path` present (a CONNECT: only `:method` and `:authority`), their
/// values without control characters, space or DEL. Every other field: a lower-case token for a
/// name, no NUL, CR or LF in its value, none of the connection-specific fields HTTP/2 forbids,
/// and `te` only as `trailers`. Trailers: the same, without pseudo-header fields.
enum HTTP2RequestBlockCheck {
    enum Block {
        case head, trailers
    }

    private static let method: UInt8 = 1
    private static let scheme: UInt8 = 2
    private static let authority: UInt8 = 4
    private static let path: UInt8 = 8

    static func isValid(_ block: HPACKHeaders, as kind: Block) -> Bool {
        var seen: UInt8 = 0
        var regularFieldsBegan = false
        var isConnect = false
        for (name, value, _) in block {
            if name.utf8.first == UInt8(ascii: ":") {
                guard kind == .head, !regularFieldsBegan, let field = pseudoHeaderField(name), seen & field == 0 else { return false }
                guard value.everyUTF8Byte({ $0 > 0x20 && $0 != 0x7F }) else { return false }
                seen |= field
                if field == method { isConnect = value == "CONNECT" }
                if field == path, value.isEmpty { return false }
            } else {
                regularFieldsBegan = true
                guard !name.isEmpty, name.everyUTF8Byte(isLowerCaseToken),
                    value.everyUTF8Byte({ $0 != 0 && $0 != UInt8(ascii: "\r") && $0 != UInt8(ascii: "\n") })
                else { return false }
                // Only names of these lengths can be forbidden: most fields skip the comparisons.
                switch name.utf8.count {
                case 2, 7, 10, 16, 17:
                    switch name {
                    case "connection", "transfer-encoding", "proxy-connection", "keep-alive", "upgrade": return false
                    case "te" where kind == .head && value != "trailers": return false
                    default: break
                    }
                default: break
                }
            }
        }
        guard kind == .head else { return true }
        return isConnect ? seen == method | authority : seen & (method | scheme | path) == method | scheme | path
    }

    private static func pseudoHeaderField(_ name: String) -> UInt8? {
        switch name {
        case ":method": method
        case ":scheme": scheme
        case ":authority": authority
        case ":path": path
        default: nil
        }
    }

    /// HTTP's `tchar`s (``RawRequestHead/isToken(_:)``) without the upper-case letters, which HTTP/2 forbids in names.
    private static func isLowerCaseToken(_ byte: UInt8) -> Bool {
        RawRequestHead.isToken(byte) && !(UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
    }
}
