/// Where the admin listener binds (`admin.listen`): a loopback address and port, or a Unix
/// socket. Nothing else can be written, so `Bearer owner` is only ever accepted from this machine.
public enum AdminListenAddress: Sendable, Equatable, CustomStringConvertible {
    case tcp(host: String, port: Int)
    case unixSocket(path: String)

    /// `127.0.0.1:9099`, `[::1]:9099`, `localhost:9099` or `unix:/path`; nil for anything else,
    /// a non-loopback host above all.
    public init?(_ text: String) {
        if text.hasPrefix("unix:") {
            let path = String(text.dropFirst(5))
            guard path.hasPrefix("/"), (2...100).contains(path.utf8.count), !path.utf8.contains(0) else { return nil }
            self = .unixSocket(path: path)
            return
        }
        guard let colon = text.utf8.lastIndex(of: UInt8(ascii: ":")), let port = Int(text[text.index(after: colon)...]),
            (1...65535).contains(port)
        else { return nil }
        var host = String(text[..<colon]).lowercased()
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        // A numeric address is bound as written; `localhost` is not looked up (a hosts file could point it anywhere).
        if host == "localhost" { host = "127.0.0.1" }
        guard host == "::1" || ServingMode.isLoopbackBind(host), !host.hasPrefix("[") else { return nil }
        self = .tcp(host: host, port: port)
    }

    public var description: String {
        switch self {
        case .tcp(let host, let port): host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
        case .unixSocket(let path): "unix:\(path)"
        }
    }
}
