import HTTPTypes
import LinkDomainCore
import LinkDomainStorage
import NIOCore

/// An ``ImmediateResponse`` as HTTP/1.1 bytes, in the order NIO's encoder writes the same response
/// on the router's path: status line, the response's fields, `Content-Length` (unless a 304 or
/// already there), `Date`, then the fields every response gets, and `Connection: close` when the
/// request asked for it.
///
/// Field values are already legal: `HTTPFields` turns control bytes into spaces when it is built.
struct ResponseBytes {
    /// The fields every response gets (security headers), encoded once.
    let trailingFields: [UInt8]

    init(trailingFields: HTTPFields) {
        var bytes: [UInt8] = []
        for field in trailingFields { Self.append(field, to: &bytes) }
        self.trailingFields = bytes
    }

    /// The whole response, its body included unless `includeBody` is false (HEAD).
    func encode(_ response: ImmediateResponse, date: String, includeBody: Bool, closing: Bool = false, allocator: ByteBufferAllocator) -> ByteBuffer {
        let body = includeBody ? response.body : nil
        var buffer = allocator.buffer(capacity: 256 + trailingFields.count + (body?.readableBytes ?? 0) + response.headers.count * 64)
        if let line = Self.statusLine(response.status) {
            buffer.writeStaticString(line)
        } else {
            buffer.writeStaticString("HTTP/1.1 ")
            buffer.writeString(String(response.status.code))
            buffer.writeInteger(UInt8(ascii: " "))
            buffer.writeString(response.status.reasonPhrase)
            buffer.writeStaticString("\r\n")
        }
        for field in response.headers {
            buffer.writeString(field.name.rawName)
            buffer.writeStaticString(": ")
            buffer.writeString(field.value)
            buffer.writeStaticString("\r\n")
        }
        if response.headers[.contentLength] == nil, response.status != .notModified {
            buffer.writeStaticString("Content-Length: ")
            buffer.writeString(String(response.body?.readableBytes ?? 0))
            buffer.writeStaticString("\r\n")
        }
        buffer.writeStaticString("Date: ")
        buffer.writeString(date)
        buffer.writeStaticString("\r\n")
        buffer.writeBytes(trailingFields)
        buffer.writeStaticString(closing ? "Connection: close\r\n\r\n" : "\r\n")
        if var body { buffer.writeBuffer(&body) }
        return buffer
    }

    /// ``ImmediateResponse/redirect(_:to:)``'s bytes, written without making the response: nil when
    /// the location has a byte `HTTPFields` would change (a control or non-ASCII byte), which the
    /// caller then encodes through it.
    ///
    /// Every sign-in link's answer is made here: its pieces are copied into the buffer in one
    /// write, as each of ByteBuffer's own writes checks its storage's exclusive access again.
    func encodeRedirect(
        _ status: HTTPResponse.Status, location: String, date: String, closing: Bool = false, allocator: ByteBufferAllocator
    ) -> ByteBuffer? {
        guard let line = Self.statusLine(status), location.everyUTF8Byte({ $0 > 0x20 && $0 < 0x7F }) else { return nil }
        let tail: StaticString = closing ? "Connection: close\r\n\r\n" : "\r\n"
        var location = location
        var date = date
        return location.withUTF8 { location in
            date.withUTF8 { date in
                trailingFields.withUnsafeBytes { trailing in
                    let middle = Self.bytes("\r\nCache-Control: no-store\r\nContent-Length: 0\r\nDate: ")
                    let (line, name, end, tail) = (Self.bytes(line), Self.bytes("Location: "), Self.bytes("\r\n"), Self.bytes(tail))
                    let count = line.count + name.count + location.count + middle.count + date.count + end.count + trailing.count + tail.count
                    var buffer = allocator.buffer(capacity: count)
                    buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: count) { target in
                        var written = 0
                        func put(_ piece: UnsafeRawBufferPointer) {
                            UnsafeMutableRawBufferPointer(rebasing: target[written..<(written + piece.count)]).copyMemory(from: piece)
                            written += piece.count
                        }
                        put(line)
                        put(name)
                        put(UnsafeRawBufferPointer(location))
                        put(middle)
                        put(UnsafeRawBufferPointer(date))
                        put(end)
                        put(trailing)
                        put(tail)
                        return written
                    }
                    return buffer
                }
            }
        }
    }

    /// A literal's bytes in the binary. Every literal given is more than one character: one of a
    /// single scalar has no pointer (`utf8Start` traps), which the tests would show at once.
    private static func bytes(_ text: StaticString) -> UnsafeRawBufferPointer {
        UnsafeRawBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount)
    }

    /// The status lines of the answers given here, written as they are.
    private static func statusLine(_ status: HTTPResponse.Status) -> StaticString? {
        switch (status.code, status.reasonPhrase) {
        case (200, "OK"): "HTTP/1.1 200 OK\r\n"
        case (302, "Found"): "HTTP/1.1 302 Found\r\n"
        case (303, "See Other"): "HTTP/1.1 303 See Other\r\n"
        case (304, "Not Modified"): "HTTP/1.1 304 Not Modified\r\n"
        default: nil
        }
    }

    private static func append(_ field: HTTPField, to bytes: inout [UInt8]) {
        bytes += field.name.rawName.utf8
        bytes += ": ".utf8
        bytes += field.value.utf8
        bytes += "\r\n".utf8
    }
}
