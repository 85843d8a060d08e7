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
/// logged is the same in both forms: never a query string, code, key or password. Control
/// characters in messages and values are written as `\u{1B}`, so that a value a client chose
/// (an address, a path) cannot move a terminal's cursor, recolour it, or forge a line.
public struct LineLogHandler: LogHandler {
    /// How each line is written.
    public enum Format: Sendable {
        case text, json
    }

    public var metadata: Logger.Metadata = [:]
    public var logLevel: Logger.Level
    let format: Format
    let label: String
    /// Writes a line; the flag says it may wait to be written with others (a request's line).
    let write: @Sendable (String, Bool) -> Void

    /// - Parameter write: where lines go; standard error (``BufferedLogOutput``) when nil.
    public init(format: Format, label: String, level: Logger.Level, write: (@Sendable (String) -> Void)? = nil) {
        self.format = format
        self.label = label
        self.logLevel = level
        if let write {
            self.write = { line, _ in write(line) }
        } else {
            self.write = { line, gather in BufferedLogOutput.standardError.write(line, gather: gather) }
        }
    }

    /// Writes what waits to standard error: at exit.
    public static func flush() {
        BufferedLogOutput.standardError.flush()
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        let time = LogTime.now
        // Most lines carry only their own metadata: no merge then.
        let metadata = metadata.isEmpty ? event.metadata ?? [:] : metadata.merging(event.metadata ?? [:], uniquingKeysWith: { $1 })
        let message = Self.escapingControlCharacters("\(event.message)")
        // Request lines may wait a moment to be written together; every other line goes at once.
        let gather = event.level <= .info && message == RequestLog.message
        switch format {
        case .text:
            var line = "\(time) \(event.level.rawValue) \(label): \(message)"
            for (key, value) in metadata.sorted(by: { $0.key < $1.key }) {
                line += " \(Self.escapingControlCharacters(key))=\(Self.escapingControlCharacters("\(value)"))"
            }
            write(line + "\n", gather)
        case .json:
            var object: [String: JSONValue] = [
                "time": .string(time), "level": .string(event.level.rawValue), "label": .string(label), "message": .string(message),
            ]
            for (key, value) in metadata where object[key] == nil {
                object[Self.escapingControlCharacters(key)] = .string(Self.escapingControlCharacters("\(value)"))
            }
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            guard let data = try? encoder.encode(JSONValue.object(object)) else { return }
            write(String(decoding: data, as: UTF8.self) + "\n", gather)
        }
    }

    /// `text` with every control character (C0, DEL, C1, and the line and paragraph separators)
    /// written as `\u{XX}`; unchanged, without copying, when it has none.
    static func escapingControlCharacters(_ text: String) -> String {
        func isControl(_ scalar: Unicode.Scalar) -> Bool {
            scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value) || scalar.value == 0x2028 || scalar.value == 0x2029
        }
        // Printable ASCII, byte by byte (nearly every value): nothing to escape.
        if text.utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) { return text }
        guard text.unicodeScalars.contains(where: isControl) else { return text }
        var escaped = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            if isControl(scalar) {
                escaped.append(contentsOf: "\\u{\(String(scalar.value, radix: 16, uppercase: true))}".unicodeScalars)
            } else {
                escaped.append(scalar)
            }
        }
        return String(escaped)
    }
}
