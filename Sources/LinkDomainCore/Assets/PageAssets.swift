import Foundation
import Mustache

/// The pages' templates, string tables and stylesheet: the ones compiled into the binary from
/// `Public/`, or an operator's own directory of the same shape (`publicDirectory`).
public struct PageAssets: Sendable {
    /// Templates by name (`layout` for `templates/layout.mustache`), parsed once, when loaded.
    package var templates: [String: MustacheTemplate]
    /// Their text, which the renderer fills with each language's strings once, at start.
    package var templateSources: [String: String]
    /// String tables by language code (`en` for `locales/en.json`).
    package var strings: [String: [String: String]]
    package var stylesheet: [UInt8]
    /// The pages' icon (`static/favicon.svg`; the built-in one when a directory has none).
    package var favicon: [UInt8]
    /// The pages' script (`static/page.js`; the built-in one when a directory has none).
    package var script: [UInt8]

    /// The templates every page needs, by name.
    package static var requiredTemplates: [String] {
        ["confirm-action", "debug", "landing", "layout", "message", "preview", "reset-password", "social"]
    }

    /// Why the assets cannot be used, in one sentence.
    public struct Problem: Error, Sendable, CustomStringConvertible {
        public var description: String

        package init(description: String) {
            self.description = description
        }
    }

    /// The assets built into this binary.
    public static func builtIn() throws(Problem) -> PageAssets {
        try PageAssets(files: { builtInFiles[$0] }, origin: "the built-in pages")
    }

    /// The assets in `directory`, which must hold every file the built-in set has.
    public static func load(directory: String) throws(Problem) -> PageAssets {
        let base = URL(fileURLWithPath: directory)
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw Problem(description: "\(directory) is not a directory")
        }
        return try PageAssets(
            files: { path in
                FileManager.default.contents(atPath: base.appendingPathComponent(path).path).flatMap { String(data: $0, encoding: .utf8) }
            }, origin: directory)
    }

    /// Why `directory` cannot replace the built-in pages, or nil when it can.
    package static func problem(inDirectory directory: String) -> String? {
        do {
            _ = try load(directory: directory)
            return nil
        } catch {
            return error.description
        }
    }

    /// Reads the assets through `file` (a relative path's text, or nil), checking that every template
    /// parses and every string table is a JSON object of strings.
    private init(files file: (String) -> String?, origin: String) throws(Problem) {
        templates = [:]
        templateSources = [:]
        for name in Self.requiredTemplates {
            let path = "templates/\(name).mustache"
            guard let source = file(path) else { throw Problem(description: "\(origin) lacks \(path)") }
            do {
                templates[name] = try MustacheTemplate(string: source)
                templateSources[name] = source
            } catch {
                throw Problem(description: "\(origin): \(path) is not a valid Mustache template (\(error))")
            }
        }
        strings = [:]
        for language in Languages.supported {
            let path = "locales/\(language).json"
            guard let text = file(path) else {
                if language == "en" { throw Problem(description: "\(origin) lacks \(path), the strings every page falls back to") }
                continue  // another language missing: its visitors read English
            }
            guard let table = try? JSONDecoder().decode([String: String].self, from: Data(text.utf8)) else {
                throw Problem(description: "\(origin): \(path) is not a JSON object of strings")
            }
            strings[language] = Languages.isolatingPlaceholders(table, language: language)
        }
        guard let stylesheet = file("static/styles.css") else { throw Problem(description: "\(origin) lacks static/styles.css") }
        self.stylesheet = Array(stylesheet.utf8)
        favicon = Array((file("static/favicon.svg") ?? Self.builtInFiles["static/favicon.svg"] ?? "").utf8)
        script = Array((file("static/page.js") ?? Self.builtInFiles["static/page.js"] ?? "").utf8)
    }
}
