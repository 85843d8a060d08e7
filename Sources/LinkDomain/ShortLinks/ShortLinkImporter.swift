import Foundation
import LinkDomainCore
import LinkDomainStorage
import SwiftCSV

/// Loads an export of existing short links (CSV with a header row, or a JSON list of objects),
/// each with a short link, its long link and, optionally, when it was created.
///
/// Importing is idempotent: a row whose suffix already stands for the same long link is skipped,
/// one whose suffix stands for another link is reported as invalid and nothing is overwritten.
public struct ShortLinkImporter: Sendable {
    /// What an import did: rows imported, skipped as already there, and refused with why.
    public struct Report: Sendable, Equatable, CustomStringConvertible {
        public var imported = 0
        public var skipped = 0
        /// The suffixes imported, for the audit.
        public var importedSuffixes: [String] = []
        /// `(line, reason)` for every row that was not imported.
        public var invalid: [(line: Int, reason: String)] = []

        public static func == (lhs: Report, rhs: Report) -> Bool {
            lhs.imported == rhs.imported && lhs.skipped == rhs.skipped
                && lhs.invalid.elementsEqual(rhs.invalid) { $0.line == $1.line && $0.reason == $1.reason }
        }

        public var description: String {
            (["imported \(imported), skipped \(skipped), invalid \(invalid.count)"] + invalid.map { "  line \($0.line): \($0.reason)" })
                .joined(separator: "\n")
        }
    }

    static let shortLinkNames: Set = ["shortlink", "short_link", "short link", "short"]
    static let longLinkNames: Set = ["longlink", "long_link", "long link", "longdynamiclink", "long"]
    static let createdNames: Set = ["createdat", "created_at", "created", "creationtime", "created time"]

    let store: any LinkStore
    let publicBaseURL: String
    /// The pages' redirect policy: a link whose deep link the pages would refuse is not imported
    /// (the app half would otherwise hand it to the app).
    let policy: RedirectPolicy

    public init(store: any LinkStore, publicBaseURL: String, policy: RedirectPolicy) {
        self.store = store
        self.publicBaseURL = publicBaseURL
        self.policy = policy
    }

    /// Imports the file at `path`: JSON when it starts with `[`, CSV otherwise.
    public func importFile(_ path: String) async throws -> Report {
        let text = try String(contentsOfFile: path, encoding: .utf8)
        let trimmed = text.drop { $0.isWhitespace }
        return trimmed.hasPrefix("[") ? try await importJSON(text) : try await importCSV(text)
    }

    func importCSV(_ text: String) async throws -> Report {
        let csv = try CSV<Named>(string: text, delimiter: .comma, loadColumns: false)
        let rows = csv.rows.enumerated().map { index, row in
            // The header is line 1, so row 0 is line 2 (fields spanning lines would shift this).
            (line: index + 2, fields: Dictionary(row.map { ($0.key.lowercased().trimmingCharacters(in: .whitespaces), $0.value) }) { first, _ in first })
        }
        return await importRows(rows)
    }

    func importJSON(_ text: String) async throws -> Report {
        guard case .list(let items) = try JSONDecoder().decode(JSONValue.self, from: Data(text.utf8)) else {
            return Report(invalid: [(1, "the file is not a JSON list")])
        }
        let rows = items.enumerated().map { index, item -> (line: Int, fields: [String: String]) in
            var fields: [String: String] = [:]
            if case .object(let object) = item {
                for (key, value) in object {
                    switch value {
                    case .string(let string): fields[key.lowercased()] = string
                    case .integer(let number): fields[key.lowercased()] = String(number)
                    default: break
                    }
                }
            }
            // JSON has no useful line numbers: report the item's position, counting from 1.
            return (index + 1, fields)
        }
        return await importRows(rows)
    }

    private func importRows(_ rows: [(line: Int, fields: [String: String])]) async -> Report {
        var report = Report()
        let now = Int64(Date().timeIntervalSince1970 * 1000)
        for (line, fields) in rows {
            func field(_ names: Set<String>) -> String? {
                fields.first { names.contains($0.key) }.map { $0.value.trimmingCharacters(in: .whitespaces) }.flatMap { $0.isEmpty ? nil : $0 }
            }
            guard let short = field(Self.shortLinkNames) else { report.invalid.append((line, "no short link")); continue }
            guard let suffix = suffix(of: short) else {
                report.invalid.append((line, "\(short) is not a short link of \(publicBaseURL)"))
                continue
            }
            // The rule a suffix chosen through the API or the console meets: a reserved path never becomes a link.
            if let problem = SuffixGenerator.problem(withChosen: suffix) {
                report.invalid.append((line, "\(short): \(problem)"))
                continue
            }
            guard let long = field(Self.longLinkNames), let mark = long.firstIndex(of: "?"), WebAddress(long) != nil,
                let dynamic = LinkParser.parseDynamicLink(query: long[long.index(after: mark)...])
            else {
                report.invalid.append((line, "the long link is missing or has no link= parameter"))
                continue
            }
            if let refusal = ShortLinkRequest.refusal(of: dynamic, policy: policy) {
                report.invalid.append((line, refusal))
                continue
            }
            let query = String(long[long.index(after: mark)...])
            var createdAt = now
            if let created = field(Self.createdNames) {
                guard let parsed = Self.milliseconds(created) else {
                    report.invalid.append((line, "\(created) is not a time (ISO 8601, or seconds or milliseconds since 1970)"))
                    continue
                }
                createdAt = parsed
            }
            do {
                try await store.insertShortLink(ShortLinkRecord(suffix: suffix, longLinkQuery: query, createdAt: createdAt, origin: .import))
                report.imported += 1
                report.importedSuffixes.append(suffix)
            } catch .duplicate {
                if let existing = try? await store.shortLink(suffix: suffix), existing.longLinkQuery == query {
                    report.skipped += 1
                } else {
                    report.invalid.append((line, "suffix \(suffix) already stands for another link"))
                }
            } catch {
                // Never the store's own words (`database("SQLite error 5")`): what to do about it.
                report.invalid.append((line, "not stored: the database is busy or unavailable; import the file again (rows already imported are skipped)"))
            }
        }
        return report
    }

    private func suffix(of shortLink: String) -> String? {
        let prefix = publicBaseURL.lowercased() + "/"
        guard shortLink.lowercased().hasPrefix(prefix) else { return nil }
        let suffix = shortLink.dropFirst(prefix.count)
        return suffix.isEmpty || suffix.contains("/") || suffix.contains("?") ? nil : String(suffix)
    }

    static func milliseconds(_ text: String) -> Int64? {
        if let number = Int64(text) {
            if number > 100_000_000_000 { return number }
            let (milliseconds, overflow) = number.multipliedReportingOverflow(by: 1000)
            return overflow ? nil : milliseconds
        }
        let formatter = ISO8601DateFormatter()
        for options: ISO8601DateFormatter.Options in [[.withInternetDateTime, .withFractionalSeconds], [.withInternetDateTime], [.withFullDate]] {
            formatter.formatOptions = options
            if let date = formatter.date(from: text) { return Int64(date.timeIntervalSince1970 * 1000) }
        }
        return nil
    }
}
