import LinkDomainCore
import LinkDomainStorage

/// When to try a mail again: exponential backoff from the first delay, at most 15 minutes apart,
/// until the mail has waited `retryFor` since it was queued, with a last attempt at the window's
/// end (a relay back late in the window is not missed because the doubling overshot it).
struct MailRetryPolicy: Sendable, Equatable {
    /// Seconds before the first retry.
    let initialDelay: Int64
    /// Seconds after queuing when the last attempt may start.
    let retryFor: Int64
    static let maximumDelay: Int64 = 900

    /// When (milliseconds) to try again after `attempts` failed attempts, or nil to give up.
    func nextAttempt(afterAttempts attempts: Int, queuedAt: Int64, now: Int64) -> Int64? {
        // The exponent is capped, so the shift never overflows whatever the stored count says.
        let exponent = Int64(min(max(attempts - 1, 0), 20))
        let delay = min(initialDelay << exponent, Self.maximumDelay)
        // Stored times are read back from the database: additions saturate instead of trapping.
        let (end, past) = queuedAt.addingReportingOverflow(retryFor * 1000)
        let windowEnd = past ? Int64.max : end
        guard now < windowEnd else { return nil }
        let (next, late) = now.addingReportingOverflow(delay * 1000)
        return late ? windowEnd : min(next, windowEnd)
    }
}
