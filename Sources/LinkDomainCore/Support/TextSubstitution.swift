/// Placeholders filled in translated text (`{app}`, `{email}`, `#`).
extension String {
    /// This text with every occurrence of `placeholder` replaced by `value`, matched byte for byte
    /// in UTF-8. Foundation's `replacingOccurrences` copied the text to UTF-16 and back on each
    /// call: a third of a landing page's cost (BENCHMARKS.md, "The first page a phone sees").
    /// A byte match only ever starts on a character's first byte (UTF-8 never repeats a lead byte
    /// inside a sequence), so it finds what a scalar-by-scalar search finds, in any language.
    package func substituting(_ placeholder: String, with value: String) -> String {
        let needle = Array(placeholder.utf8)
        guard let first = needle.first else { return self }
        let text = Array(utf8)
        guard text.count >= needle.count else { return self }
        var output: [UInt8] = []
        var copied = 0
        var index = 0
        let lastStart = text.count - needle.count
        while index <= lastStart {
            if text[index] == first, text[index..<index + needle.count].elementsEqual(needle) {
                if output.isEmpty { output.reserveCapacity(text.count + value.utf8.count) }
                output.append(contentsOf: text[copied..<index])
                output.append(contentsOf: value.utf8)
                index += needle.count
                copied = index
            } else {
                index += 1
            }
        }
        guard copied > 0 else { return self }
        output.append(contentsOf: text[copied...])
        return String(decoding: output, as: UTF8.self)
    }
}
