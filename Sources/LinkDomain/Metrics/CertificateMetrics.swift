import LinkDomainCore
import Prometheus

/// Certificates at `/metrics`: `linkdomain_certificate_expiry_seconds{name="links.example.com"}`
/// (seconds until the served certificate for that name expires; negative once it has) and
/// `linkdomain_acme_orders_total{outcome="issued"|"failed"}`.
extension LinkMetrics {
    func certificateExpiry(name: String, seconds: Int64) {
        registry.makeGauge(
            descriptor: MetricNameDescriptor(
                namespace: "linkdomain", metricName: "certificate_expiry", unitName: "seconds",
                helpText: "Seconds until the served TLS certificate for a name expires."),
            labels: [("name", name)]
        ).set(Double(seconds))
    }

    func acmeOrder(issued: Bool) {
        registry.makeCounter(
            descriptor: MetricNameDescriptor(
                namespace: "linkdomain", metricName: "acme_orders", unitName: "total",
                helpText: "Certificate orders placed with the ACME CA, by outcome."),
            labels: [("outcome", issued ? "issued" : "failed")]
        ).increment()
    }
}
