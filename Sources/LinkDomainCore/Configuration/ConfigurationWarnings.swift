/// What a valid configuration may still get wrong: things that load, but are most likely a mistake.
/// `check` prints them and `serve` logs them at start.
public enum ConfigurationWarnings {
    public static func of(_ configuration: LinkDomainConfiguration) -> [String] {
        var warnings: [String] = []
        for (index, app) in configuration.apple.apps.enumerated() {
            // `ABCDE12345.com.example.app` is an app ID: pasted as a bundle ID, the association file names `TEAM.TEAM.bundle`.
            let parts = app.bundleID.split(separator: ".")
            if parts.count >= 3, let first = parts.first, let prefix = ConfigurationValidators.teamID(String(first)) {
                let bundleID = parts.dropFirst().joined(separator: ".")
                warnings.append(
                    "apple.apps[\(index)].bundleID \"\(app.bundleID)\" starts with what looks like a team ID (\(prefix)): "
                        + "the association file will name \(app.teamID).\(app.bundleID). If the bundle ID is \"\(bundleID)\", write only that, "
                        + "and the team ID in apple.apps[\(index)].teamID.")
            }
        }
        // DMARC passes on DKIM only when the signing domain is the From: domain or a parent of it.
        if let dkim = configuration.mail.dkim, let domain = dkim.domain, let from = configuration.mailSender?.address.domain,
            from != domain, !from.hasSuffix("." + domain)
        {
            warnings.append(
                "mail.dkim.domain \"\(domain)\" is not mail.from's domain (\(from)) or a parent of it: "
                    + "receivers will check the signature, but DMARC will not count it for \(from).")
        }
        if configuration.mail.relay != nil, configuration.mail.from == nil {
            warnings.append(
                "mail.from is not set: mails come from noreply@\(configuration.publicHost), a domain whose SPF and DKIM "
                    + "records must then name your relay.")
        }
        if configuration.publicBaseURL.hasPrefix("https://"), configuration.branding.homeURL == nil {
            warnings.append(
                "branding.homeURL is not set: a page with nowhere else to lead (an action finished without a continue URL, "
                    + "an error) offers no \"Back to\" your website; set it to your app's website.")
        }
        // iOS opens a universal link only from another domain: without a second host, a page on this
        // one cannot offer "Open in the app" to an iPhone, only advice.
        if !configuration.apple.apps.isEmpty, configuration.pivotBaseURL == nil {
            let host = configuration.publicHost
            let example = host.split(separator: ".").count > 2 ? "open." + host.split(separator: ".").dropFirst().joined(separator: ".") : "open." + host
            warnings.append(
                "pivotBaseURL is not set: iOS opens a universal link only when the tap leads to another domain, so an iPhone "
                    + "that reaches a page on \(host) gets advice (press and hold the link in the email) instead of an \"Open in the app\" "
                    + "button. Point a second host at this service, such as https://\(example), and set pivotBaseURL to it.")
        }
        return warnings
    }
}
