import Foundation
import Logging

/// One log line per event on standard error, readable or JSON:
///
/// - `.text`: `2026-11-22T10:00:00.000Z info linkdomain: request method=GET path=/ status=200`
/// - `.json`: `{"label":…,"level":…,"message":…,"time":…,…metadata}`, for log pipelines that parse
///   rather than read.
///
/// Unlike swift-log's `StreamLogHandler`, metadata is formatted when a line is written, not each time
/// it is set: the server sets a request ID on every request, and most requests log nothing. What is
/// logged is the same in both forms: never a query string, code, key or password.
public struct LineLogHandler: LogHandler {
    public enum Format: Sendable {
        case text, json
    }

    public var metadata: Logger.Metadata = [:]
    public var logLevel: Logger.Level
    let format: Format
    let label: String
    let write: @Sendable (String) -> Void

    public init(format: Format, label: String, level: Logger.Level,
                write: @escaping @Sendable (String) -> Void = { FileHandle.standardError.write(Data($0.utf8)) }) {
        self.format = format
        self.label = label
        self.logLevel = level
        self.write = write
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        let time = Date.ISO8601FormatStyle(includingFractionalSeconds: true).format(Date())
        let metadata = metadata.merging(event.metadata ?? [:], uniquingKeysWith: { $1 })
        switch format {
        case .text:
            var line = "\(time) \(event.level.rawValue) \(label): \(event.message)"
            for (key, value) in metadata.sorted(by: { $0.key < $1.key }) { line += " \(key)=\(value)" }
            write(line + "\n")
        case .json:
            var object: [String: JSONValue] = [
                "time": .string(time), "level": .string(event.level.rawValue), "label": .string(label), "message": .string("\(event.message)"),
            ]
            for (key, value) in metadata where object[key] == nil { object[key] = .string("\(value)") }
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            guard let data = try? encoder.encode(JSONValue.object(object)) else { return }
            write(String(decoding: data, as: UTF8.self) + "\n")
        }
    }
}
