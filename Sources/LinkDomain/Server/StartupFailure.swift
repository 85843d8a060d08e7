import Foundation
import LinkDomainCore
import LinkDomainStorage
import NIOCore

/// Why `serve` could not start, in one plain sentence that names the file or key and what to do:
/// what an operator reads in `journalctl` instead of a raw Foundation or NIO error.
public enum StartupFailure {
    public static func describe(_ error: any Error, configuration: LinkDomainConfiguration) -> String {
        let address = "\(configuration.server.host.contains(":") ? "[\(configuration.server.host)]" : configuration.server.host):\(configuration.server.port)"
        switch error {
        case let problem as PageAssets.Problem:
            return "The pages cannot be loaded: \(problem) (publicDirectory); fix that directory or remove the key to use the built-in pages."
        case let error as TLSFilesProblem:
            switch error {
            case .certificate(let reason):
                return "The TLS certificate cannot be loaded: server.tls.certificatePath \(reason); point it at a readable PEM chain."
            case .privateKey(let reason):
                return "The TLS private key cannot be loaded: server.tls.privateKeyPath \(reason); point it at the certificate's PEM key."
            }
        case StoreError.database(let reason) where configuration.storage.isSQLite:
            return "The SQLite database \(reason) (storage.sqlitePath); make its directory writable by this user or set storage.sqlitePath."
        case StoreError.database:
            return "The PostgreSQL database cannot be used (storage.postgresURL): check that the server is up, and the URL's host, user, password and database."
        case let error as IOError where error.errnoCode == EADDRINUSE:
            return "Cannot listen on \(address): another process already uses that port; stop it or set server.port (--port)."
        case let error as IOError where error.errnoCode == EACCES:
            return
                "Cannot listen on \(address): permission denied; ports below 1024 need CAP_NET_BIND_SERVICE (AmbientCapabilities in the systemd unit), or set server.port above 1023."
        case let error as IOError where error.errnoCode == EADDRNOTAVAIL:
            return "Cannot listen on \(address): this machine has no such address; set server.host to one of its addresses, or 0.0.0.0."
        case is SocketAddressError:
            return "Cannot listen on \(address): server.host is not an address this machine can bind; use an IP address such as 127.0.0.1 or 0.0.0.0."
        default:
            return
                "LinkDomain could not start (\(String(describing: type(of: error)))); run `linkdomain check` with the same configuration, and see the lines above."
        }
    }
}
