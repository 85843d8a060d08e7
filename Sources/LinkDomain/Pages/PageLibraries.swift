import LinkDomainCore
import Mustache
import Synchronization

/// Each language's templates with what is the same on every page of that language written in
/// (``ConstantValues``), filled on the first page of that language: a deployment's visitors read
/// a few of the 42 languages, and filling all of them at start would make every start (and every
/// test's server) pay for languages nobody reads.
final class PageLibraries: Sendable {
    private let templates: [String: MustacheTemplate]
    private let sources: [String: String]
    private let brand: [String: String]
    private let filled = Mutex<[String: MustacheLibrary]>([:])

    init(assets: PageAssets, brand: [String: String]) {
        templates = assets.templates
        sources = assets.templateSources
        self.brand = brand
    }

    /// The templates filled with `strings` (one of the renderer's tables, so the cache holds at
    /// most one library per language it has).
    func library(_ strings: PageStrings) -> MustacheLibrary {
        if let library = filled.withLock({ $0[strings.language] }) { return library }
        var library = MustacheLibrary()
        for (name, template) in templates {
            let constant = sources[name].flatMap { ConstantValues.fill($0, strings: strings, brand: brand) }
            library.register(constant ?? template, named: name)
        }
        // Two first pages of a language at once fill it twice; the first stored is kept.
        return filled.withLock { libraries in
            if let stored = libraries[strings.language] { return stored }
            libraries[strings.language] = library
            return library
        }
    }
}
