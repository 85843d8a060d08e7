import LinkDomainCore
import LinkDomainStorage
import Prometheus

/// How a request for the sign-in helper was answered.
enum AuthHelperOutcome: String {
    /// From the origin, just now.
    case fresh
    /// From a kept copy still fresh.
    case kept
    /// From a kept copy past its age: the origin did not answer.
    case stale
    /// Outside the helper's scope: the origin never heard of it.
    case refused
    /// The origin did not answer and nothing was kept: 502 or 504.
    case failed
}

extension LinkMetrics {
    /// `linkdomain_auth_helper_requests_total{outcome}`.
    func authHelper(_ outcome: AuthHelperOutcome) {
        registry.makeCounter(
            descriptor: MetricNameDescriptor(
                namespace: "linkdomain", metricName: "auth_helper_requests", unitName: "total",
                helpText: "Requests for the sign-in helper, by how they were answered."),
            labels: [("outcome", outcome.rawValue)]
        ).increment()
    }
}
