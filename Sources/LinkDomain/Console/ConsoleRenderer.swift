import Foundation
import HTTPTypes
import Hummingbird
import LinkDomainCore
import LinkDomainStorage
import Mustache

/// What every console page shows around its content: the navigation and who is signed in.
struct ConsoleChrome: Sendable {
    enum Section: String, Sendable, CaseIterable {
        case overview, links, mail, accounts, association

        /// The title of the section's pages.
        var title: ConsoleText {
            switch self {
            case .overview: .overview
            case .links: .shortLinks
            case .mail: .mail
            case .accounts: .accounts
            case .association: .association
            }
        }
    }

    var current: Section?
    /// The sections this link domain has (accounts only with the embedded backend).
    var sections = Section.allCases
    var actor: String?
    /// The sign-out form's CSRF token; nil where there is nothing to sign out of (development).
    var signOutToken: String?
}

/// The console's pages: its own templates and strings (`Public/console/`, built into the binary;
/// a custom `publicDirectory` restyles the pages people see, not the operators' console), in the
/// pages' stylesheet with the console's additions. Every value goes through `{{ }}`, which escapes it.
///
/// The console speaks the operator's language as the pages speak a visitor's (`Accept-Language`,
/// then `pages.defaultLanguage`; docs/design/languages.md): ``ConsoleLanguageMiddleware`` chooses it
/// once per request, and every string and page of that request's task is in it.
struct ConsoleRenderer: Sendable {
    let library: MustacheLibrary
    /// Each language's table, English's keys filled in where a table lacks one.
    let tables: [String: [String: String]]
    let appName: String

    /// The language of the request this task serves.
    @TaskLocal static var language = "en"

    /// The strings of the request's language.
    var strings: [String: String] { tables[Self.language] ?? tables["en"] ?? [:] }

    init(appName: String) {
        var templates: [String: MustacheTemplate] = [:]
        let prefix = "console/templates/", suffix = ".mustache"
        for (path, source) in PageAssets.builtInFiles where path.hasPrefix(prefix) && path.hasSuffix(suffix) {
            // The templates are the repository's, and a test renders each: one that did not parse would fail it.
            if let template = try? MustacheTemplate(string: source) { templates[String(path.dropFirst(prefix.count).dropLast(suffix.count))] = template }
        }
        library = MustacheLibrary(templates: templates)
        func table(_ language: String) -> [String: String] {
            PageAssets.builtInFiles["console/locales/\(language).json"].flatMap { try? JSONDecoder().decode([String: String].self, from: Data($0.utf8)) } ?? [:]
        }
        tables = Languages.fillingGaps(
            Dictionary(uniqueKeysWithValues: Languages.supported.map { ($0, Languages.isolatingPlaceholders(table($0), language: $0)) }))
        self.appName = appName
    }

    subscript(_ text: ConsoleText) -> String { strings[text.rawValue] ?? text.rawValue }

    /// `text` with each `{name}` replaced by its value, in one pass: a value (a link's name, an
    /// address) that holds another `{name}` is shown as it is.
    func format(_ text: ConsoleText, _ values: [String: String]) -> String {
        self[text].substituting(values.map { ("{\($0.key)}", $0.value) })
    }

    static let stylesheet = ByteBuffer(string: PageAssets.builtInFiles["console/console.css"] ?? "")
    /// Copy buttons, and a page Back restores asked for again; nothing depends on it.
    static let script = ByteBuffer(string: PageAssets.builtInFiles["console/console.js"] ?? "")

    /// Console answers are never cached or indexed.
    static let headers: HTTPFields = [.contentType: "text/html; charset=utf-8", .cacheControl: "no-store", .xRobotsTag: "noindex, nofollow"]

    func page(
        _ template: String, title: String, chrome: ConsoleChrome, values: [String: Any] = [:], notice: String? = nil, problem: String? = nil,
        status: HTTPResponse.Status = .ok
    ) -> Response {
        var object = values
        object["t"] = strings
        object["lang"] = Self.language
        object["dir"] = Languages.direction(Self.language)
        object["title"] = title
        object["appName"] = appName
        if let notice { object["notice"] = notice }
        if let problem { object["problem"] = problem }
        if chrome.actor != nil {
            object["hasNav"] = true
            object["nav"] = chrome.sections.map { section -> [String: Any] in
                let label: ConsoleText =
                    switch section {
                    case .overview: .navOverview
                    case .links: .navLinks
                    case .mail: .navMail
                    case .accounts: .navAccounts
                    case .association: .navAssociation
                    }
                return [
                    "href": section == .overview ? RoutePaths.console : "\(RoutePaths.console)/\(section.rawValue)", "label": self[label],
                    "current": section == chrome.current,
                ]
            }
            object["actor"] = chrome.actor
        }
        if let token = chrome.signOutToken { object["signOut"] = token }
        let html = library.render(object, withTemplate: template) ?? ""
        return Response(status: status, headers: Self.headers, body: .init(byteBuffer: ByteBuffer(string: html)))
    }
}

/// Chooses the console's language for each request: the operator's `Accept-Language`, else
/// `pages.defaultLanguage`, as the pages do.
struct ConsoleLanguageMiddleware<Context: RequestContext>: RouterMiddleware {
    let router: LinkRouter

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let language = router.language(preferring: nil, acceptLanguage: request.headers[.acceptLanguage])
        return try await ConsoleRenderer.$language.withValue(language) { try await next(request, context) }
    }
}
