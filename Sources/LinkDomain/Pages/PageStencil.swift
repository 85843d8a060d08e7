import LinkDomainCore
import LinkDomainStorage
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
            guard digits > 0, slot < textCount, cursor + 2 < bytes.count, Array(bytes[cursor..<cursor + 3]) == close else { return nil }
            pieces.append(Array(bytes[start..<index]))
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
/// Bounded by count and by bytes, oldest first out: shapes depend on requests (a debug page's
/// parameter count), and a table that only grew would pin whatever an attacker's shapes cost.
final class PageStencils: Sendable {
    struct Key: Hashable {
        let template: String
        let language: String
        let shape: [UInt8]

        /// What keeping the key costs, roughly.
        var bytes: Int { template.utf8.count + language.utf8.count + shape.count + 64 }
    }

    enum Entry {
        case stencil(PageStencil)
        /// The template treats its texts in ways a stencil cannot keep: Mustache renders it.
        case unusable

        var bytes: Int {
            switch self {
            case .stencil(let stencil): stencil.size + stencil.pieces.count * 32 + stencil.slots.count * 8
            case .unusable: 16
            }
        }
    }

    private struct Table {
        var entries: [Key: Entry] = [:]
        /// Keys in the order they were stored: the first is the next out.
        var order: [Key] = []
        var start = 0
        var bytes = 0
    }

    static let capacity = 512
    /// The most the table holds: every built-in page in every language is a small part of it.
    static let capacityBytes = 4 * 1024 * 1024
    /// A shape with more texts than this gets no stencil (a long list: a debug page), so that it
    /// costs one rendering, not three, and nothing is kept for it.
    static let maximumTexts = 64
    private let table = Mutex(Table())

    /// The entry for `key`, and whether a new one should be cut (not for shapes of too many texts).
    func entry(_ key: Key, textCount: Int) -> (entry: Entry?, hasRoom: Bool) {
        table.withLock { ($0.entries[key], textCount <= Self.maximumTexts) }
    }

    subscript(key: Key) -> Entry? { table.withLock { $0.entries[key] } }

    /// How many entries and bytes are kept.
    var usage: (count: Int, bytes: Int) { table.withLock { ($0.entries.count, $0.bytes) } }

    func store(_ entry: Entry, for key: Key) {
        let size = entry.bytes + key.bytes
        guard size <= Self.capacityBytes else { return }
        table.withLock { table in
            guard table.entries[key] == nil else { return }
            while table.entries.count >= Self.capacity || table.bytes + size > Self.capacityBytes, table.start < table.order.count {
                let oldest = table.order[table.start]
                table.start += 1
                if let removed = table.entries.removeValue(forKey: oldest) { table.bytes -= removed.bytes + oldest.bytes }
            }
            // The order's spent front is dropped once it is half the array: each key is moved at most twice.
            if table.start > 64, table.start * 2 > table.order.count {
                table.order.removeFirst(table.start)
                table.start = 0
            }
            table.entries[key] = entry
            table.order.append(key)
            table.bytes += size
        }
    }
}
