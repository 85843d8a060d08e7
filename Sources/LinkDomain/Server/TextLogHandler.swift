import Foundation
import Logging

/// Readable log lines on standard error: `2026-11-22T10:00:00.000Z info linkdomain: request method=GET path=/ status=200`.
///
/// Unlike swift-log's `StreamLogHandler`, metadata is formatted when a line is written, not each time
/// it is set: the server sets a request ID on every request, and most requests log nothing.
public struct TextLogHandler: LogHandler {
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
        let time = Date.ISO8601FormatStyle(includingFractionalSeconds: true).format(Date())
        var line = "\(time) \(event.level.rawValue) \(label): \(event.message)"
        for (key, value) in metadata.merging(event.metadata ?? [:], uniquingKeysWith: { $1 }).sorted(by: { $0.key < $1.key }) {
            line += " \(key)=\(value)"
        }
        write(line + "\n")
    }
}
