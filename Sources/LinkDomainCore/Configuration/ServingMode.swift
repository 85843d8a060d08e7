/// Who may use the server's powers.
public enum ServingMode: String, Sendable, Equatable {
    /// A developer's machine: the Firebase Auth emulator's contract holds (codes listed, `Bearer
    /// owner` is an admin, any API key, links logged).
    case development
    /// Anything others can reach: configured keys only, no code listing, nothing secret in logs.
    case deployment

    /// `localhost`, `127.0.0.0/8` and `::1`.
    package static func isLoopbackBind(_ host: String) -> Bool {
        let host = host.lowercased()
        if host == "localhost" || host == "::1" || host == "[::1]" { return true }
        return isLoopbackIPv4(host)
    }

    /// A dotted IPv4 address in 127.0.0.0/8, read digit by digit: `UInt8("+1")` would read a
    /// name such as `127.0.0.+1` as an address.
    package static func isLoopbackIPv4(_ host: String) -> Bool {
        let octets = host.split(separator: ".", omittingEmptySubsequences: false)
        return octets.count == 4 && octets[0] == "127"
            && octets.allSatisfy { (1...3).contains($0.utf8.count) && $0.utf8.allSatisfy { (0x30...0x39).contains($0) } && UInt8($0) != nil }
    }
}
