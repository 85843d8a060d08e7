import Foundation

// Writes a Swift source file holding each input file as a string literal, keyed by its path
// relative to the assets directory: `PageAssetEmbedder <assets directory> <output> <file>...`.

let arguments = CommandLine.arguments
guard arguments.count >= 3 else {
    FileHandle.standardError.write(Data("usage: PageAssetEmbedder ASSETS_DIRECTORY OUTPUT FILE...\n".utf8))
    exit(2)
}
let root = URL(fileURLWithPath: arguments[1]).standardizedFileURL.path + "/"

/// The text as a one-line Swift string literal.
func literal(_ text: String) -> String {
    var result = "\""
    for scalar in text.unicodeScalars {
        switch scalar {
        case "\\": result += "\\\\"
        case "\"": result += "\\\""
        case "\n": result += "\\n"
        case "\r": result += "\\r"
        case "\t": result += "\\t"
        case _ where scalar.value < 0x20 || scalar.value == 0x7F: result += "\\u{\(String(scalar.value, radix: 16))}"
        default: result.unicodeScalars.append(scalar)
        }
    }
    return result + "\""
}

var source = """
    // Generated at build time by PageAssetEmbedder from Public/; edit the files there.

    extension PageAssets {
        /// Each file under Public/, by its relative path.
        static let builtInFiles: [String: String] = [

    """
for path in arguments.dropFirst(3).sorted() {
    let absolute = URL(fileURLWithPath: path).standardizedFileURL.path
    guard absolute.hasPrefix(root) else { continue }
    guard let data = FileManager.default.contents(atPath: absolute), let text = String(data: data, encoding: .utf8) else {
        FileHandle.standardError.write(Data("PageAssetEmbedder: \(absolute) is not readable UTF-8 text\n".utf8))
        exit(1)
    }
    source += "        \(literal(String(absolute.dropFirst(root.count)))): \(literal(text)),\n"
}
source += "    ]\n}\n"
do {
    try Data(source.utf8).write(to: URL(fileURLWithPath: arguments[2]), options: .atomic)
} catch {
    FileHandle.standardError.write(Data("PageAssetEmbedder: cannot write \(arguments[2]): \(error)\n".utf8))
    exit(1)
}
