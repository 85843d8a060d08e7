import Foundation
import Mustache
import Testing

@testable import LinkDomain
@testable import LinkDomainCore
@testable import LinkDomainStorage

@Suite("Page and mail strings are typed")
struct PageTextTests {
    @Test("every language's table has exactly the keys of PageText: a missing or stray translation fails here, not on a page")
    func tablesComplete() throws {
        let assets = try PageAssets.builtIn()
        let keys = Set(PageText.allCases.map(\.rawValue))
        #expect(Set(assets.strings.keys) == Set(Languages.supported))
        for (language, table) in assets.strings {
            #expect(keys.subtracting(table.keys).sorted() == [], "\(language) lacks these")
            #expect(Set(table.keys).subtracting(keys).sorted() == [], "\(language) has keys no page uses")
        }
    }

    @Test(
        "every language's mail and console tables have exactly the keys of MailText and ConsoleText",
        arguments: [("mail/locales/", MailText.allCases.map(\.rawValue)), ("console/locales/", ConsoleText.allCases.map(\.rawValue))])
    func otherTablesComplete(folder: String, keys: [String]) throws {
        let keys = Set(keys)
        var languages: [String] = []
        for (path, text) in PageAssets.builtInFiles where path.hasPrefix(folder) {
            languages.append(String(path.dropFirst(folder.count).dropLast(".json".count)))
            let table = try JSONDecoder().decode([String: String].self, from: Data(text.utf8))
            #expect(keys.subtracting(table.keys).sorted() == [], "\(path) lacks these")
            #expect(Set(table.keys).subtracting(keys).sorted() == [], "\(path) has keys nothing uses")
        }
        #expect(Set(languages) == Set(Languages.supported))
    }

    @Test(
        "every translation keeps the English string's placeholders, holds no control or direction character, and leaves no English sentence behind"
    )
    func translationsFaithful() throws {
        func placeholders(_ text: String) -> [String] {
            let plain = text.replacing(/\{count, plural,.*\}/.dotMatchesNewlines(), with: "{count}")
            return Set(plain.matches(of: /\{([A-Za-z]+)\}/).map { String($0.output.1) }).sorted()
        }
        // Names of files and commands read the same in every language.
        let sameEverywhere: Set = ["doctor", "apple_file", "android_file"]
        for folder in ["locales/", "mail/locales/", "console/locales/"] {
            let english = try JSONDecoder().decode([String: String].self, from: Data(PageAssets.builtInFiles[folder + "en.json"]!.utf8))
            for language in Languages.supported where language != "en" {
                let path = folder + language + ".json"
                let table = try JSONDecoder().decode([String: String].self, from: Data(try #require(PageAssets.builtInFiles[path]).utf8))
                var untranslated: [String] = []
                for (key, text) in table {
                    #expect(placeholders(text) == placeholders(english[key] ?? ""), "\(path) \(key)")
                    let controls = text.unicodeScalars.filter {
                        ($0.value < 0x20) || (0x202A...0x202E).contains($0.value) || (0x2066...0x2069).contains($0.value)
                    }
                    #expect(controls.isEmpty, "\(path) \(key) holds control characters")
                    if text == english[key], text.count > 12, !sameEverywhere.contains(key) { untranslated.append(key) }
                }
                // British English is English; elsewhere only the debug page's short terms may match.
                if language != "en-GB" { #expect(untranslated == [], "\(path) still English") }
            }
        }
    }

    @Test("every {{t.key}} in the templates names a PageText")
    func templatesUseKnownKeys() throws {
        let assets = try PageAssets.builtIn()
        let keys = Set(PageText.allCases.map(\.rawValue))
        var used = 0
        for (path, text) in PageAssets.builtInFiles where path.hasPrefix("templates/") {
            for match in text.matches(of: /\{\{[#^\/]?t\.([a-z_]+)\}\}/) {
                used += 1
                #expect(keys.contains(String(match.output.1)), "\(path): t.\(match.output.1)")
            }
        }
        #expect(used > 10 && !assets.templates.isEmpty)
    }

    /// Each model's values by their property names, as a template sees them, without reflection:
    /// a property the model does not name would vanish from custom templates.
    @Test("page models name every property to the templates", arguments: PageTextTests.models)
    func modelsNameEveryProperty(model: any PageModel) {
        for child in Mirror(reflecting: model).children {
            guard let label = child.label else { continue }
            let value = Mirror(reflecting: child.value)
            let isAbsent = value.displayStyle == .optional && value.children.isEmpty
            let named = PageValueTree(model).child(named: label)
            #expect(isAbsent ? named == nil : named != nil, "\(type(of: model)).\(label)")
        }
    }

    static let models: [any PageModel] = [
        MessagePage(
            title: "t", purpose: "p", paragraphs: ["a"], actionURL: "u", actionLabel: "l",
            resetRequest: ResetRequestForm(fields: [HiddenField(name: "n", value: "v")]), newLink: NewLinkForm(fields: []),
            qrPath: "M4 4h1v1h-1z", qrSide: 29),
        MessagePage(title: "t", paragraphs: []),
        ConfirmActionPage(title: "t", body: "b", button: "x", email: "e", newEmail: "n", fields: []),
        ResetPasswordPage(title: "t", email: "e", error: "r", fields: []),
        LandingPage(
            title: "t", body: "b", continueFirst: true, pressAndHold: "p", openURL: "o", storeURL: "s", storeLabel: "l", webURL: "w",
            inAppHelp: "h", pageURL: "p", copiedNote: "c", appArgument: "a"),
        LandingPage(title: "t", body: "b"),
        PreviewPage(title: "t", description: "d", continueURL: "c", openURL: "o", storeURL: "s", storeLabel: "l"),
        SocialPage(title: "t", description: "d", imageURL: "i"),
        DebugPage(title: "t", shape: "s", parameters: [.init(name: "n", value: "v")], flows: [.init(platform: "p", outcome: "o")]),
    ]
}
