import LinkDomainCore
import LinkDomainStorage
import Prometheus

/// The mail queue's counters: `linkdomain_mail_queued_total{kind}`, `_sent_total`, `_retried_total`,
/// `_failed_total`, and the queue's depth and oldest mail's age.
extension LinkMetrics {
    /// One mail's step: `queued`, `sent`, `retried` or `failed`.
    func mail(_ step: String, kind: String) {
        registry.makeCounter(
            descriptor: MetricNameDescriptor(
                namespace: "linkdomain", subsystem: "mail", metricName: step, unitName: "total",
                helpText: "Mails \(step), by kind."),
            labels: [("kind", kind)]
        ).increment()
    }

    /// The queue as last read: how many mails wait, and how long the oldest has.
    func mailQueue(depth: Int, oldestAgeSeconds: Double) {
        registry.makeGauge(
            descriptor: MetricNameDescriptor(
                namespace: "linkdomain", subsystem: "mail", metricName: "queue_depth", unitName: "",
                helpText: "Mails waiting for the relay.")
        ).set(Double(depth))
        registry.makeGauge(
            descriptor: MetricNameDescriptor(
                namespace: "linkdomain", subsystem: "mail", metricName: "queue_oldest_age", unitName: "seconds",
                helpText: "How long the oldest waiting mail has waited.")
        ).set(oldestAgeSeconds)
    }
}
