// Text in columns, as `packtool` and `study` print their tables: one copy for both tools.

/// `text` followed by spaces up to `width` characters; when it is as wide or wider, followed by
/// `gap` spaces instead, so that columns never run together.
package func leftAligned(_ text: String, width: Int, gap: Int = 0) -> String {
    text.count >= width ? text + String(repeating: " ", count: gap) : text + String(repeating: " ", count: width - text.count)
}

/// `text` after spaces that make it `width` characters wide (numbers in a column).
package func rightAligned(_ text: String, width: Int) -> String {
    String(repeating: " ", count: max(0, width - text.count)) + text
}
