import Foundation
import Testing

/// What the compiler cannot hold: inside each library target, the folders are layers. A folder may
/// use the folders listed above it in docs/architecture.md's table for its target, never one below
/// it, and no folder reaches itself through others. Uses are read from the sources: every name of a
/// top-level type, including `Type.member`, outside comments and string literals. Between targets
/// the package description holds the order (`LinkDomainCore` ← `LinkDomainStorage` ← `LinkDomain`).
@Suite("Architecture")
struct ArchitectureTests {
    static let root = URL(filePath: #filePath).deletingLastPathComponent().appending(path: "../..").standardized
    static let targets = ["LinkDomainCore", "LinkDomainStorage", "LinkDomain"]

    /// One Swift source: its target, folder, file name and text without comments and string literals.
    struct Source {
        let target: String
        let folder: String
        let file: String
        let code: String
        let text: String
    }

    static func sources() throws -> [Source] {
        var sources: [Source] = []
        for target in targets {
            let directory = root.appending(path: "Sources/\(target)")
            let folders = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
            for folder in folders.sorted() {
                guard let files = try? FileManager.default.contentsOfDirectory(atPath: directory.appending(path: folder).path) else { continue }
                for file in files.sorted() where file.hasSuffix(".swift") {
                    let text = try String(contentsOf: directory.appending(path: "\(folder)/\(file)"), encoding: .utf8)
                    sources.append(Source(target: target, folder: folder, file: file, code: Self.code(of: text), text: text))
                }
            }
        }
        return sources
    }

    /// The source with comments and string literals (single-line, multi-line, with escapes) blanked out.
    static func code(of text: String) -> String {
        let bytes = Array(text.utf8)
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var index = 0
        func starts(_ marker: String, at position: Int) -> Bool {
            let marker = Array(marker.utf8)
            return position + marker.count <= bytes.count && Array(bytes[position..<position + marker.count]) == marker
        }
        while index < bytes.count {
            if starts("//", at: index) {
                while index < bytes.count, bytes[index] != UInt8(ascii: "\n") { index += 1 }
            } else if starts("/*", at: index) {
                index += 2
                while index < bytes.count, !starts("*/", at: index) { index += 1 }
                index += 2
            } else if starts("\"\"\"", at: index) {
                index += 3
                while index < bytes.count, !starts("\"\"\"", at: index) { index += bytes[index] == UInt8(ascii: "\\") ? 2 : 1 }
                index += 3
                out.append(contentsOf: Array("\"\"".utf8))
            } else if bytes[index] == UInt8(ascii: "\"") {
                index += 1
                while index < bytes.count, bytes[index] != UInt8(ascii: "\""), bytes[index] != UInt8(ascii: "\n") {
                    index += bytes[index] == UInt8(ascii: "\\") ? 2 : 1
                }
                index += 1
                out.append(contentsOf: Array("\"\"".utf8))
            } else {
                out.append(bytes[index])
                index += 1
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// The capitalised names a source uses: each starting where no letter, digit, `_` or `.` comes
    /// before it, so `SuffixGenerator.isPlausible` counts `SuffixGenerator` and `x.Member` nothing.
    static func names(in code: String) -> Set<String> {
        var names = Set<String>()
        let scalars = Array(code.unicodeScalars)
        func isNamePart(_ scalar: Unicode.Scalar) -> Bool { scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) || scalar == "_" }
        var index = 0
        while index < scalars.count {
            let scalar = scalars[index]
            let before = index > 0 ? scalars[index - 1] : " "
            guard ("A"..."Z").contains(scalar), !isNamePart(before), before != "." else {
                index += 1
                continue
            }
            var end = index
            while end < scalars.count, isNamePart(scalars[end]) { end += 1 }
            names.insert(String(String.UnicodeScalarView(scalars[index..<end])))
            index = end
        }
        return names
    }

    /// The top-level types a source declares.
    static func declaredTypes(in code: String) -> [String] {
        let declaration = /^(?:@\w+ )*(?:(?:public|package|internal|final|indirect) )*(?:struct|enum|class|actor|protocol|typealias) ([A-Z][A-Za-z0-9_]*)/
        return code.split(separator: "\n").compactMap { line in (try? declaration.prefixMatch(in: line)).flatMap { $0.map { String($0.output.1) } } }
    }

    /// For one target: which folders each folder uses, and one file and name that shows each use.
    static func folderUses(of target: String, in sources: [Source]) -> (uses: [String: Set<String>], evidence: [String: String]) {
        var owner: [String: String] = [:]
        for source in sources where source.target == target {
            for type in declaredTypes(in: source.code) { owner[type] = source.folder }
        }
        var uses: [String: Set<String>] = [:]
        var evidence: [String: String] = [:]
        for source in sources where source.target == target {
            uses[source.folder, default: []].formUnion([])
            for name in names(in: source.code).sorted() {
                guard let other = owner[name], other != source.folder else { continue }
                uses[source.folder, default: []].insert(other)
                evidence["\(source.folder) → \(other)"] = evidence["\(source.folder) → \(other)"] ?? "\(source.folder)/\(source.file) names \(name)"
            }
        }
        return (uses, evidence)
    }

    /// A path of uses that comes back to where it started, if the folders have one.
    static func cycle(in uses: [String: Set<String>]) -> [String]? {
        var finished = Set<String>()
        func search(_ path: [String]) -> [String]? {
            guard let folder = path.last else { return nil }
            for next in (uses[folder] ?? []).sorted() where !finished.contains(next) {
                if let start = path.firstIndex(of: next) { return Array(path[start...]) + [next] }
                if let found = search(path + [next]) { return found }
            }
            finished.insert(folder)
            return nil
        }
        for folder in uses.keys.sorted() where !finished.contains(folder) {
            if let found = search([folder]) { return found }
        }
        return nil
    }

    /// docs/architecture.md's layer tables: for each target (a `### \`Target\`` heading), its
    /// folders from the bottom up, one row each.
    static func documentedOrder() throws -> [String: [String]] {
        let text = try String(contentsOf: root.appending(path: "docs/architecture.md"), encoding: .utf8)
        var order: [String: [String]] = [:]
        var target: String?
        for line in text.split(separator: "\n") {
            if let heading = try /^### `(\w+)`/.prefixMatch(in: line) {
                target = String(heading.output.1)
            } else if line.hasPrefix("## ") {
                target = nil
            } else if let target, let row = try /^\| `(\w+)\/` \|/.prefixMatch(in: line) {
                order[target, default: []].append(String(row.output.1))
            }
        }
        return order
    }

    @Test("within each target no folder uses, through any number of others, a folder that uses it")
    func noCycles() throws {
        let sources = try Self.sources()
        for target in Self.targets {
            let (uses, evidence) = Self.folderUses(of: target, in: sources)
            #expect(uses.count > 1, "the scan found \(target)'s folders")
            if let cycle = Self.cycle(in: uses) {
                let steps = zip(cycle, cycle.dropFirst()).map { evidence["\($0) → \($1)"] ?? "" }
                Issue.record("a cycle of folders in \(target): \(cycle.joined(separator: " → ")) (\(steps.joined(separator: "; ")))")
            }
        }
    }

    @Test("each target's folders are docs/architecture.md's table for it, and each folder uses only folders above it there")
    func documentedOrderHolds() throws {
        let sources = try Self.sources()
        let order = try Self.documentedOrder()
        for target in Self.targets {
            let documented = order[target] ?? []
            let folders = Set(sources.filter { $0.target == target }.map(\.folder))
            #expect(Set(documented) == folders, "\(target): the table lists \(documented.sorted()), the sources have \(folders.sorted())")
            #expect(documented.count == Set(documented).count, "\(target): a folder listed twice")
            let (uses, evidence) = Self.folderUses(of: target, in: sources)
            for (folder, used) in uses {
                guard let position = documented.firstIndex(of: folder) else { continue }
                for other in used.sorted() {
                    guard let otherPosition = documented.firstIndex(of: other) else { continue }
                    #expect(otherPosition < position, "\(target): \(folder) uses \(other), listed above it (\(evidence["\(folder) → \(other)"] ?? ""))")
                }
            }
        }
    }

    @Test("the scanner sees Type.member uses, and not names in strings, comments or after a dot")
    func scanner() {
        let code = Self.code(
            of: """
                let a = SuffixGenerator.isPlausible(x) // Commented
                let b = "Quoted \\" Still"; let c = x.Member
                /* Block */ let d: [Platform] = []
                """)
        #expect(Self.names(in: code) == ["SuffixGenerator", "Platform"])
        #expect(Self.declaredTypes(in: "public struct A {}\n@frozen public enum B\n    struct Nested {}\nfinal class C") == ["A", "B", "C"])
    }

    @Test("the cycle search finds long cycles and names them, and passes layered folders")
    func cycleSearch() {
        #expect(Self.cycle(in: ["A": ["B"], "B": ["C"], "C": ["A"], "D": ["A"]]) == ["A", "B", "C", "A"])
        #expect(Self.cycle(in: ["A": ["B", "C"], "B": ["C"], "C": [], "D": ["A", "C"]]) == nil)
        #expect(Self.cycle(in: ["Config": ["Pages"], "Pages": ["Backend"], "Backend": ["Mail"], "Mail": ["Config"]])?.count == 5)
    }

    @Test("the pure core imports nothing that does I/O")
    func coreImports() throws {
        let forbidden: Set = [
            "Hummingbird", "HummingbirdCore", "NIOPosix", "NIOSSL", "NIOHTTP1", "GRDB", "PostgresNIO", "AsyncHTTPClient", "JWTKit",
            "Prometheus", "ServiceLifecycle", "Logging",
        ]
        for source in try Self.sources() where source.target == "LinkDomainCore" {
            for line in source.code.split(separator: "\n") {
                guard let found = try /^(?:@\w+ )?import (\w+)/.prefixMatch(in: line) else { continue }
                #expect(!forbidden.contains(String(found.output.1)), "\(source.folder)/\(source.file) imports \(found.output.1)")
            }
        }
    }

    @Test("every document a source or test cites is in the repository")
    func citedDocumentsExist() throws {
        var cited: [String: String] = [:]
        for directory in ["Sources", "Tests/LinkDomainTests"] {
            let base = Self.root.appending(path: directory)
            guard let walker = FileManager.default.enumerator(atPath: base.path) else { continue }
            for case let file as String in walker where file.hasSuffix(".swift") {
                let text = try String(contentsOf: base.appending(path: file), encoding: .utf8)
                for match in text.matches(of: /(?:docs\/[\w\/.-]+\.md|\b[A-Z]+\.md)/) { cited[String(match.output)] = "\(directory)/\(file)" }
            }
        }
        #expect(cited.keys.contains("docs/wire-formats.md"), "the scan found citations")
        for (document, citer) in cited.sorted(by: { $0.key < $1.key }) {
            #expect(
                FileManager.default.fileExists(atPath: Self.root.appending(path: document).path), "\(citer) cites \(document), which is not in the repository")
        }
    }

    @Test("no source file is longer than 250 lines, except the generated page assets")
    func fileLengths() throws {
        for source in try Self.sources() where source.file != "BuiltInPageAssets.swift" {
            let lines = source.text.split(separator: "\n", omittingEmptySubsequences: false).count
            #expect(lines <= 250, "\(source.target)/\(source.folder)/\(source.file) has \(lines) lines")
        }
    }

    @Test("the libraries hold the product only: no test clock, exercise or NIOEmbedded in them (they are LinkDomainExercises')")
    func productOnly() throws {
        let sources = try Self.sources()
        #expect(!sources.isEmpty)
        for source in sources {
            #expect(!source.code.contains("import NIOEmbedded"), "\(source.folder)/\(source.file)")
            #expect(source.code.firstMatch(of: /(?:class|struct|enum) \w*(?:Exercise|ManualWallClock)\b/) == nil, "\(source.folder)/\(source.file)")
        }
    }
}
