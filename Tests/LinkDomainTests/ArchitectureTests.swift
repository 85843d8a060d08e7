import Foundation
import Testing

/// The library's folders are layers: a folder may use the types of the folders below it, never of
/// one that uses its own, however indirectly. Checked from the sources, by the top-level types each
/// folder declares.
@Suite("Architecture")
struct ArchitectureTests {
    static let library = URL(filePath: #filePath).deletingLastPathComponent().appending(path: "../../Sources/LinkDomain").standardized

    /// Each folder's Swift sources, comments removed.
    static func sources() throws -> [String: [String: String]] {
        var folders: [String: [String: String]] = [:]
        for folder in try FileManager.default.contentsOfDirectory(atPath: library.path) {
            let directory = library.appending(path: folder)
            guard let files = try? FileManager.default.contentsOfDirectory(atPath: directory.path) else { continue }
            for file in files where file.hasSuffix(".swift") {
                let text = try String(contentsOf: directory.appending(path: file), encoding: .utf8)
                folders[folder, default: [:]][file] = text.split(separator: "\n", omittingEmptySubsequences: false).map { line in
                    line.range(of: "//").map { String(line[..<$0.lowerBound]) } ?? String(line)
                }.joined(separator: "\n")
            }
        }
        return folders
    }

    /// Which folders each folder uses: a folder uses another when it names a type declared there.
    static func folderUses() throws -> [String: Set<String>] {
        let folders = try Self.sources()
        let declaration = /^(?:public |final |package )*(?:struct|enum|class|actor|protocol|typealias) ([A-Z][A-Za-z0-9_]*)/.anchorsMatchLineEndings()
        var owner: [String: String] = [:]
        for (folder, files) in folders {
            for text in files.values {
                for match in text.matches(of: declaration) { owner[String(match.output.1)] = folder }
            }
        }
        #expect(owner.count > 100, "the scan found the library's types")
        var uses: [String: Set<String>] = [:]
        for (folder, files) in folders {
            uses[folder, default: []] = []
            for text in files.values {
                for match in text.matches(of: /\b[A-Z][A-Za-z0-9_]*\b/) {
                    if let other = owner[String(match.output)], other != folder { uses[folder, default: []].insert(other) }
                }
            }
        }
        return uses
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

    @Test("the folders are layers: no folder uses, through any number of others, a folder that uses it")
    func layers() throws {
        let uses = try Self.folderUses()
        #expect(uses.count > 10, "the scan found the library's folders")
        if let cycle = Self.cycle(in: uses) { Issue.record("a cycle of folders: \(cycle.joined(separator: " → "))") }
    }

    @Test("the cycle search finds long cycles and names them, and passes layered folders")
    func cycleSearch() {
        #expect(Self.cycle(in: ["A": ["B"], "B": ["C"], "C": ["A"], "D": ["A"]]) == ["A", "B", "C", "A"])
        #expect(Self.cycle(in: ["A": ["B", "C"], "B": ["C"], "C": [], "D": ["A", "C"]]) == nil)
        #expect(Self.cycle(in: ["Config": ["Pages"], "Pages": ["Backend"], "Backend": ["Mail"], "Mail": ["Config"]])?.count == 5)
    }

    @Test("no source file is longer than 250 lines, except the generated page assets")
    func fileLengths() throws {
        for (folder, files) in try Self.sources() {
            for (file, text) in files where file != "BuiltInPageAssets.swift" {
                let lines = text.split(separator: "\n", omittingEmptySubsequences: false).count
                #expect(lines <= 250, "\(folder)/\(file) has \(lines) lines")
            }
        }
    }

    @Test("the library holds the product only: no test clock, exercise or NIOEmbedded in it (they are LinkDomainExercises')")
    func productOnly() throws {
        let sources = try Self.sources()
        #expect(!sources.isEmpty)
        for (folder, files) in sources {
            for (file, text) in files {
                #expect(!text.contains("import NIOEmbedded"), "\(folder)/\(file)")
                #expect(text.firstMatch(of: /(?:class|struct|enum) \w*(?:Exercise|ManualWallClock)\b/) == nil, "\(folder)/\(file)")
            }
        }
    }
}
