import Foundation
import Testing

/// The library's folders are layers: a folder may use the types of the folders below it, never of
/// one that uses its own. Checked from the sources, by the top-level types each folder declares.
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

    @Test("no folder uses a folder that uses it")
    func layers() throws {
        let folders = try Self.sources()
        let declaration = /^(?:public |final |package )*(?:struct|enum|class|actor|protocol|typealias) ([A-Z][A-Za-z0-9_]*)/.anchorsMatchLineEndings()
        var owner: [String: String] = [:]
        for (folder, files) in folders {
            for text in files.values {
                for match in text.matches(of: declaration) { owner[String(match.output.1)] = folder }
            }
        }
        var uses: [String: Set<String>] = [:]
        for (folder, files) in folders {
            for text in files.values {
                for match in text.matches(of: /\b[A-Z][A-Za-z0-9_]*\b/) {
                    if let other = owner[String(match.output)], other != folder { uses[folder, default: []].insert(other) }
                }
            }
        }
        #expect(owner.count > 100, "the scan found the library's types")
        for (folder, used) in uses {
            for other in used where uses[other]?.contains(folder) == true {
                Issue.record("\(folder) and \(other) use each other")
            }
        }
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
}
