import NIOCore
import Synchronization

/// A page with the places for its texts cut out: the bytes Mustache writes for one template,
/// language and ``PageShape``, between which a page of that shape only needs its texts, escaped.
///
/// Mustache looks up every value by name through dynamic casts and a split of the name, and
/// appends piece by piece; for the reset form that was two thirds of the request (BENCHMARKS.md).
/// A stencil is cut from one rendering with a sentinel in place of each text, and used only once
/// the same template, filled with probe texts (mixed case, characters to escape, sorting against
/// their order), gives through Mustache what the stencil gives: a template that transforms,
/// sorts or leaves a text unescaped keeps being rendered by Mustache.
struct PageStencil: Sendable {
    /// `pieces[0]`, text `slots[0]`, `pieces[1]`, ... `pieces[slots.count]`.
    let pieces: [[UInt8]]
    let slots: [Int]
    let size: Int

    /// The text that stands for the `index`-th text: private-use characters, which no escaping changes.
    static func sentinel(_ index: Int) -> String { "\u{E000}\(index)\u{E001}" }

    /// A text that tells Mustache's treatments apart: case changes, escaping, reversal, and
    /// (counting down) sorting.
    static func probe(_ index: Int) -> String { "Pq<&>\"'\(1_000_000 - index)z" }

    /// Cut from `rendering` (the template filled with ``sentinel(_:)``s); nil when a sentinel is
    /// broken or names no text.
    init?(sentinelRendering rendering: String, textCount: Int) {
        let bytes = Array(rendering.utf8)
        let open: [UInt8] = [0xEE, 0x80, 0x80], close: [UInt8] = [0xEE, 0x80, 0x81]
        var pieces: [[UInt8]] = [], slots: [Int] = [], start = 0, index = 0
        while index + 2 < bytes.count {
            guard bytes[index] == open[0], bytes[index + 1] == open[1], bytes[index + 2] == open[2] else {
                index += 1
                continue
            }
            var cursor = index + 3, slot = 0, digits = 0
            while cursor < bytes.count, digits < 7, let digit = ASCIIDigit(bytes[cursor]) {
                slot = slot * 10 + digit
                digits += 1
                cursor += 1
            }
            guard digits > 0, slot < textCount, cursor + 2 < bytes.count, Array(bytes[cursor ..< cursor + 3]) == close else { return nil }
            pieces.append(Array(bytes[start ..< index]))
            slots.append(slot)
            start = cursor + 3
            index = start
        }
        pieces.append(Array(bytes[start...]))
        self.pieces = pieces
        self.slots = slots
        size = bytes.count
    }

    /// The page with `texts` (a ``PageShape``'s) in their places, HTML-escaped.
    func page(_ texts: [String]) -> ByteBuffer {
        var buffer = ByteBufferAllocator().buffer(capacity: size + 512)
        for (piece, slot) in zip(pieces, slots) {
            buffer.writeBytes(piece)
            if slot < texts.count { HTMLText.write(texts[slot], into: &buffer) }
        }
        if let last = pieces.last { buffer.writeBytes(last) }
        return buffer
    }
}

private func ASCIIDigit(_ byte: UInt8) -> Int? {
    byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") ? Int(byte - UInt8(ascii: "0")) : nil
}

/// Stencils by template, language and shape, each made the first time its shape is rendered.
/// Bounded: shapes depend on requests (a debug page's parameter count), and past the bound a new
/// shape is rendered by Mustache each time.
final class PageStencils: Sendable {
    struct Key: Hashable {
        let template: String
        let language: String
        let shape: [UInt8]
    }

    enum Entry {
        case stencil(PageStencil)
        /// The template treats its texts in ways a stencil cannot keep: Mustache renders it.
        case unusable
    }

    static let capacity = 512
    private let entries = Mutex<[Key: Entry]>([:])

    /// The entry for `key`, and whether a new one would be kept (past the bound, cutting one is wasted work).
    func entry(_ key: Key) -> (entry: Entry?, hasRoom: Bool) {
        entries.withLock { ($0[key], $0.count < Self.capacity) }
    }

    subscript(key: Key) -> Entry? { entry(key).entry }

    func store(_ entry: Entry, for key: Key) {
        entries.withLock { entries in
            if entries.count < Self.capacity { entries[key] = entry }
        }
    }
}
