import Foundation
import LinkDomainCore
import LinkDomainStorage
import Logging

/// `linkdomain check`'s line about ordered certificates: what the shared store holds for the
/// configured names, when it expires and is renewed, and a warning when it expires within a week.
public enum CertificateCheck {
    public static func summary(_ configuration: LinkDomainConfiguration, acme: ACMESettings) async throws -> String {
        let opened = try OpenedStore.open(configuration, logger: Logger(label: "linkdomain"))
        let issued = try await opened.withRunning { _ in try await opened.acme.issuedCertificate(names: IssuedCertificate.key(acme.names)) }
        return text(acme: acme, issued: issued, now: Int64(Date().timeIntervalSince1970))
    }

    static func text(acme: ACMESettings, issued: IssuedCertificate?, now: Int64) -> String {
        let names = acme.names.joined(separator: ", ")
        var lines = ["certificate: ordered from \(acme.directoryURL) for \(names) by \(acme.challenge.rawValue)"]
        if let issued {
            let renewAt = RenewalSchedule.renewalTime(notBefore: issued.notBefore, notAfter: issued.notAfter)
            let date = { (seconds: Int64) in ISO8601DateFormatter().string(from: Date(timeIntervalSince1970: TimeInterval(seconds))) }
            lines.append("  issued, expires \(date(issued.notAfter)), renewed from \(date(renewAt))")
        }
        let findings = RenewalSchedule.findings(names: acme.names, notAfter: issued?.notAfter, failingSince: nil, lastError: nil, now: now)
        lines += findings.map { "warning: \($0)" }
        return lines.joined(separator: "\n")
    }
}
