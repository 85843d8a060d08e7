/// When a certificate is renewed and how failures are retried: pure arithmetic on seconds,
/// saturating, since the times come from certificates a CA wrote.
public enum RenewalSchedule {
    /// The first retry after a failed order, in seconds; each further failure doubles it.
    public static let firstRetrySeconds: Int64 = 10
    /// The longest wait between two attempts.
    public static let longestRetrySeconds: Int64 = 3600
    /// Expiry closer than this is a finding.
    public static let expiryWarningSeconds: Int64 = 7 * 86400
    /// Renewal failing for longer than this is a finding.
    public static let failureWarningSeconds: Int64 = 86400

    /// Two thirds of the way from `notBefore` to `notAfter` (at `notBefore` when they are reversed).
    public static func renewalTime(notBefore: Int64, notAfter: Int64) -> Int64 {
        let (lifetime, overflow) = notAfter.subtractingReportingOverflow(notBefore)
        guard !overflow, lifetime > 0 else { return notBefore }
        return notBefore &+ (lifetime / 3 * 2 + lifetime % 3 * 2 / 3)
    }

    /// The wait before attempt `failures + 1`: 10 s, 20 s, 40 s ... an hour at most.
    public static func retryDelay(afterFailures failures: Int) -> Int64 {
        guard failures > 0 else { return 0 }
        let doublings = min(failures - 1, 20)
        return min(firstRetrySeconds << Int64(doublings), longestRetrySeconds)
    }

    /// What an operator must hear about the served certificate: soon expired, or not renewing.
    public static func findings(names: [String], notAfter: Int64?, failingSince: Int64?, lastError: String?, now: Int64) -> [String] {
        var findings: [String] = []
        let listed = names.joined(separator: ", ")
        if let notAfter {
            let left = notAfter.subtractingReportingOverflow(now)
            if left.overflow || left.partialValue < expiryWarningSeconds {
                let days = left.overflow ? 0 : max(0, left.partialValue) / 86400
                findings.append(
                    left.partialValue <= 0 && !left.overflow
                        ? "the certificate for \(listed) has expired" : "the certificate for \(listed) expires in \(days) day\(days == 1 ? "" : "s")")
            }
        } else {
            findings.append("no certificate has been issued for \(listed) yet")
        }
        if let failingSince, now.subtractingReportingOverflow(failingSince).partialValue >= failureWarningSeconds {
            findings.append("renewal has failed for \(max(0, now &- failingSince) / 3600) hours (\(lastError ?? "no answer"))")
        }
        return findings
    }
}
