import Foundation
import LinkDomainCore
import LinkDomainStorage
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
        // Most lines carry only their own metadata: no merge then.
        let metadata = metadata.isEmpty ? event.metadata ?? [:] : metadata.merging(event.metadata ?? [:], uniquingKeysWith: { $1 })
        let message = Self.escapingControlCharacters("\(event.message)")
        // Request lines may wait a moment to be written together; every other line goes at once.
        let gather = event.level <= .info && message == RequestLog.message
        let fields = metadata.map { (key: $0.key, value: Self.escapingControlCharacters("\($0.value)")) }
        guard let line = line(level: event.level, message: message, fields: fields) else { return }
        write(line, gather)
    }

    /// One line in this handler's format: the time, level, label and (escaped) message, then the
    /// fields sorted by key, keys as given (escaped here) and values already escaped.
    func line(level: Logger.Level, message: String, fields: [(key: String, value: String)]) -> String? {
        let time = LogTime.now
        switch format {
        case .text:
            var line = "\(time) \(level.rawValue) \(label): \(message)"
            for (key, value) in fields.sorted(by: { $0.key < $1.key }) {
                line += " \(Self.escapingControlCharacters(key))=\(value)"
            }
            return line + "\n"
        case .json:
            var object: [String: JSONValue] = [
                "time": .string(time), "level": .string(level.rawValue), "label": .string(label), "message": .string(message),
            ]
            for (key, value) in fields where object[key] == nil {
                object[Self.escapingControlCharacters(key)] = .string(value)
            }
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            guard let data = try? encoder.encode(JSONValue.object(object)) else { return nil }
            return String(decoding: data, as: UTF8.self) + "\n"
        }
    }

    /// `text` with every control character (C0, DEL, C1, and the line and paragraph separators)
    /// written as `\u{XX}`; unchanged, without copying, when it has none.
    static func escapingControlCharacters(_ text: String) -> String {
        func isControl(_ scalar: Unicode.Scalar) -> Bool {
            scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value) || scalar.value == 0x2028 || scalar.value == 0x2029
        }
        // Printable ASCII, byte by byte (nearly every value): nothing to escape.
        if isPrintableASCII(text) { return text }
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

extension LineLogHandler {
    /// Writes a request's line straight from its values: the line ``log(event:)`` writes for
    /// ``RequestLog``'s event, byte for byte, without swift-log's metadata dictionaries and their
    /// merge, which at the default level cost more than answering the request (BENCHMARKS.md).
    func writeRequestLine(method: String, path: String, status: Int, duration: Duration) {
        // The common case, a text line with no metadata of the handler's own: written as bytes.
        if format == .text, metadata.isEmpty, Self.isPrintableASCII(method), Self.isPrintableASCII(path) {
            write(Self.plainRequestLine(label: label, method: method, path: path, status: status, duration: duration), true)
            return
        }
        let eventKeys = ["duration_ms", "method", "path", "status"]
        var fields = [
            (key: "duration_ms", value: LogTime.milliseconds(duration)), ("method", Self.escapingControlCharacters(method)),
            ("path", Self.escapingControlCharacters(path)), ("status", String(status)),
        ]
        // The handler's own (a request ID), unless the event names it.
        for (key, value) in metadata where !eventKeys.contains(key) {
            fields.append((key, Self.escapingControlCharacters("\(value)")))
        }
        guard let line = line(level: .info, message: RequestLog.message, fields: fields) else { return }
        write(line, true)
    }

    /// Printable ASCII: nothing to escape in a text line.
    static func isPrintableASCII(_ text: String) -> Bool {
        text.everyUTF8Byte { $0 >= 0x20 && $0 < 0x7F }
    }

    /// `TIME info LABEL: request duration_ms=D method=M path=P status=S`, every part plain, copied
    /// into the string's storage: building it by interpolation cost more than answering the
    /// association file.
    static func plainRequestLine(label: String, method: String, path: String, status: Int, duration: Duration) -> String {
        let (second, milliseconds) = LogTime.nowParts
        let micros = LogTime.microseconds(duration)
        // The fixed words are 54 bytes and the numbers at most 41 digits (a duration under 2^40 s,
        // a status of any Int): what does not fit would be left out, never written past the end.
        let capacity = second.utf8.count + label.utf8.count + method.utf8.count + path.utf8.count + 128
        return String(unsafeUninitializedCapacity: capacity) { buffer in
            var count = 0
            func append(_ bytes: UnsafeBufferPointer<UInt8>) {
                guard let source = bytes.baseAddress, let target = buffer.baseAddress, count + bytes.count <= buffer.count else { return }
                (target + count).initialize(from: source, count: bytes.count)
                count += bytes.count
            }
            func append(_ text: StaticString) {
                append(UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
            }
            func append(_ text: String) {
                var text = text
                text.withUTF8 { append($0) }
            }
            func append(_ value: Int64, digits minimum: Int) {
                // Never negative here; written from its last digit back.
                var length = 1
                var probe = value / 10
                while probe > 0 {
                    length += 1
                    probe /= 10
                }
                length = max(length, minimum)
                guard count + length <= buffer.count else { return }
                var rest = max(0, value)
                for position in stride(from: count + length - 1, through: count, by: -1) {
                    buffer[position] = UInt8(ascii: "0") + UInt8(rest % 10)
                    rest /= 10
                }
                count += length
            }
            append(second)
            append(".")
            append(Int64(milliseconds), digits: 3)
            append("Z info ")
            append(label)
            append(": request duration_ms=")
            append(micros / 1000, digits: 1)
            append(".")
            append(micros % 1000, digits: 3)
            append(" method=")
            append(method)
            append(" path=")
            append(path)
            append(" status=")
            append(Int64(max(0, status)), digits: 1)
            append("\n")
            return count
        }
    }
}
