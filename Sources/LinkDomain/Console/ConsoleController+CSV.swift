import Foundation
import Hummingbird
import LinkDomainCore
import LinkDomainStorage

/// Short links as CSV in the console: every link out, in the columns `linkdomain import` reads,
/// and a pasted export in, by the same importer and rules.
extension ConsoleController {
    /// The largest CSV the console takes; larger files are `linkdomain import`'s.
    static var importBytes: Int { 2 * 1024 * 1024 }

    /// Short links from a CSV export pasted into the form (the `import` command's format and rules:
    /// a suffix that stands for another link is refused, never overwritten).
    func importLinks(_ text: String, session: ConsoleSession, request: Request, context: Context) async throws -> Response {
        let report: ShortLinkImporter.Report
        do {
            report = try await ShortLinkImporter(
                store: links.store, publicBaseURL: configuration.publicBaseURL,
                policy: RedirectPolicy(authorizedDomains: configuration.authorizedDomains)
            ).importCSV(text)
        } catch {
            return try await linkList(request, session: session, context: context, problem: renderer[.importUnreadable], status: .badRequest)
        }
        // One line per link, as every other change: the audit says which links an import made.
        for suffix in report.importedSuffixes { AuditLog.record(actor: session.actor, action: "shortLink.import", object: suffix, logger: context.logger) }
        // Post/Redirect/Get: the report travels in the redirect, signed for this session, so a
        // reload shows it again instead of importing again.
        let outcome = ImportOutcome(
            imported: report.imported, skipped: report.skipped, invalid: report.invalid.count,
            refused: report.invalid.prefix(5).map { "line \($0.line): \($0.reason)" })
        let encoded = outcome.encoded
        let signature = access.seal.resultToken(session, result: encoded, now: clock.nowSeconds)
        return redirect(to: "\(Self.linksPath)?imported=\(encoded)&signature=\(signature)#import")
    }

    /// An import's report as the page after it shows it, if `parameters` carry one signed for `session`.
    func importOutcome(_ request: Request, session: ConsoleSession) -> (notice: String, problem: String?)? {
        let parameters = request.uri.queryParameters
        guard let encoded = parameters["imported"].map(String.init),
            let signature = parameters["signature"].map(String.init),
            access.seal.isValidResultToken(signature, session: session, result: encoded, now: clock.nowSeconds),
            let outcome = ImportOutcome(encoded: encoded)
        else { return nil }
        let summary = renderer.format(
            .importReport, ["imported": String(outcome.imported), "skipped": String(outcome.skipped), "invalid": String(outcome.invalid)])
        return (summary, outcome.refused.isEmpty ? nil : outcome.refused.joined(separator: "; "))
    }

    /// What an import did, as the redirect after it carries it (base64url of its JSON).
    struct ImportOutcome: Codable, Equatable {
        var imported: Int
        var skipped: Int
        var invalid: Int
        /// The first refused lines, with why.
        var refused: [String]

        init(imported: Int, skipped: Int, invalid: Int, refused: [String]) {
            self.imported = imported
            self.skipped = skipped
            self.invalid = invalid
            self.refused = refused
        }

        var encoded: String { Base64URL.encode(Array((try? JSONEncoder().encode(self)) ?? Data())) }

        init?(encoded: String) {
            guard encoded.utf8.count <= 16 * 1024, let bytes = Base64URL.decode(encoded),
                let outcome = try? JSONDecoder().decode(ImportOutcome.self, from: Data(bytes))
            else { return nil }
            self = outcome
        }
    }

    /// Every link as CSV, in the columns `linkdomain import` reads (`shortLink,longLink,createdAt`), with its state and clicks.
    func csv(_ context: Context) async throws -> Response {
        var lines = ["shortLink,longLink,createdAt,disabled,clicks"]
        var query = ShortLinkQuery(limit: 1000)
        while true {
            let page = try await links.list(query, logger: context.logger)
            for listing in page {
                let fields = [
                    "\(configuration.publicBaseURL)/\(listing.record.suffix)", "\(configuration.publicBaseURL)/?\(listing.record.longLinkQuery)",
                    RFC3339.string(milliseconds: listing.record.createdAt), listing.disabled ? "true" : "false", String(listing.clicks),
                ]
                lines.append(fields.map(Self.csvField).joined(separator: ","))
            }
            guard page.count == query.limit, let last = page.last else { break }
            query.after = last.cursor(for: .created)
        }
        return Response(
            status: .ok,
            headers: [
                .contentType: "text/csv; charset=utf-8", .cacheControl: "no-store",
                .contentDisposition: "attachment; filename=\"short-links.csv\"",
            ],
            body: .init(byteBuffer: ByteBuffer(string: lines.joined(separator: "\r\n") + "\r\n")))
    }

    /// A CSV field, quoted when it must be; a leading `=`, `+`, `-` or `@` is prefixed with `'` so a spreadsheet does not run it.
    static func csvField(_ value: String) -> String {
        var value = value
        if let first = value.first, "=+-@".contains(first) { value = "'" + value }
        guard value.contains(where: { ",\"\r\n".contains($0) }) else { return value }
        return "\"" + value.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }
}
