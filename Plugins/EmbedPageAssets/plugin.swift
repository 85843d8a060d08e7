import Foundation
import PackagePlugin

/// Compiles `Public/` (templates, string tables, stylesheet) into the library as Swift source, so
/// the binary serves its pages from any directory with nothing beside it.
@main
struct EmbedPageAssets: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: any Target) async throws -> [Command] {
        let publicDirectory = context.package.directoryURL.appending(path: "Public")
        let inputs = Self.files(under: publicDirectory)
        let output = context.pluginWorkDirectoryURL.appending(path: "BuiltInPageAssets.swift")
        return [
            .buildCommand(
                displayName: "Embedding \(inputs.count) page assets from Public/",
                executable: try context.tool(named: "PageAssetEmbedder").url,
                arguments: [publicDirectory.path, output.path] + inputs.map(\.path),
                inputFiles: inputs,
                outputFiles: [output])
        ]
    }

    /// Every regular file under `directory`, sorted so the generated source is stable.
    static func files(under directory: URL) -> [URL] {
        guard let enumerator = FileManager.default.enumerator(at: directory, includingPropertiesForKeys: [.isRegularFileKey]) else {
            return []
        }
        return enumerator.compactMap { $0 as? URL }
            .filter { (try? $0.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile) == true }
            .sorted { $0.path < $1.path }
    }
}
