/// Placeholders filled in translated text (`{app}`, `{email}`, `#`).
extension String {
    /// This text with every occurrence of `placeholder` replaced by `value`.
    package func substituting(_ placeholder: String, with value: String) -> String {
        substituting([(placeholder, value)])
    }

    /// This text with every placeholder of `fills` replaced by its value, in one pass: a value put
    /// in is never searched again, so an address that holds `{support}` reads as it was written
    /// (filling one placeholder after another would fill that one too).
    ///
    /// Matched byte for byte in UTF-8. Foundation's `replacingOccurrences` copied the text to
    /// UTF-16 and back on each call: a third of a landing page's cost (BENCHMARKS.md, "The first
    /// page a phone sees"). A byte match only ever starts on a character's first byte (UTF-8
    /// never repeats a lead byte inside a sequence), so it finds what a scalar-by-scalar search
    /// finds. Unlike Foundation's default search, it also fills a placeholder followed by a
    /// combining mark (`#` in `#️⃣`), which no built-in text has.
    package func substituting(_ fills: [(placeholder: String, value: String)]) -> String {
        let needles = fills.compactMap { fill in fill.placeholder.isEmpty ? nil : (bytes: Array(fill.placeholder.utf8), value: fill.value) }
        guard !needles.isEmpty else { return self }
        // Placeholders start with `{` or `#`: most of the text is passed over by one comparison.
        // Every placeholder has a first byte (empty ones were dropped above), and there is one.
        let starts = needles.map { $0.bytes[0] }
        let first = starts[0]
        let oneStart = starts.allSatisfy { $0 == first }
        var output: [UInt8] = []
        var source = self  // `withUTF8` reads a native string's own bytes, without a copy
        let copied = source.withUTF8 { text in
            var copied = 0
            var index = 0
            scan: while index < text.count {
                let byte = text[index]
                if oneStart ? byte == first : starts.contains(byte) {
                    for needle in needles
                    where text.count - index >= needle.bytes.count
                        && UnsafeBufferPointer(rebasing: text[index..<index + needle.bytes.count]).elementsEqual(needle.bytes)
                    {
                        if output.isEmpty { output.reserveCapacity(text.count + needle.value.utf8.count) }
                        output.append(contentsOf: UnsafeBufferPointer(rebasing: text[copied..<index]))
                        output.append(contentsOf: needle.value.utf8)
                        index += needle.bytes.count
                        copied = index
                        continue scan
                    }
                }
                index += 1
            }
            if copied > 0 { output.append(contentsOf: UnsafeBufferPointer(rebasing: text[copied...])) }
            return copied
        }
        guard copied > 0 else { return self }
        return String(decoding: output, as: UTF8.self)
    }
}
