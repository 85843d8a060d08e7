import Foundation
import Logging

/// One JSON object a line — `{"time":…,"level":…,"label":…,"message":…,…metadata}` — for log
/// pipelines that parse rather than read. What is logged is the same as in text form: never a
/// query string, code, key or password.
public struct JSONLogHandler: LogHandler {
    public var metadata: Logger.Metadata = [:]
    public var logLevel: Logger.Level
    let label: String
    let write: @Sendable (String) -> Void

    public init(label: String, level: Logger.Level, write: @escaping @Sendable (String) -> Void = { FileHandle.standardError.write(Data($0.utf8)) }) {
        self.label = label
        self.logLevel = level
        self.write = write
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        var object: [String: JSONValue] = [
            "time": .string(Date.ISO8601FormatStyle(includingFractionalSeconds: true).format(Date())),
            "level": .string(event.level.rawValue), "label": .string(label), "message": .string("\(event.message)"),
        ]
        for (key, value) in metadata.merging(event.metadata ?? [:], uniquingKeysWith: { $1 }) where object[key] == nil {
            object[key] = .string("\(value)")
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        guard let data = try? encoder.encode(JSONValue.object(object)) else { return }
        write(String(decoding: data, as: UTF8.self) + "\n")
    }
}
