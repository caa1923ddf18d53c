// Text in columns, as `packtool` and `study` print their tables: one copy for both tools; widths
// in terminal columns where the text may be in any script.

/// `text` followed by spaces up to `width` characters; when it is as wide or wider, followed by
/// `gap` spaces instead, so that columns never run together.
package func leftAligned(_ text: String, width: Int, gap: Int = 0) -> String {
    text.count >= width ? text + String(repeating: " ", count: gap) : text + String(repeating: " ", count: width - text.count)
}

/// `text` after spaces that make it `width` characters wide (numbers in a column).
package func rightAligned(_ text: String, width: Int) -> String {
    String(repeating: " ", count: max(0, width - text.count)) + text
}

/// The columns `text` takes in a terminal: East Asian wide and full-width characters (Han,
/// kana, Hangul, full-width punctuation) take two, combining marks and format characters none,
/// every other character one (Unicode's East Asian Width, as terminals apply it).
package func displayWidth(_ text: String) -> Int {
    text.unicodeScalars.reduce(0) { width, scalar in
        switch scalar.properties.generalCategory {
        case .nonspacingMark, .enclosingMark, .format: return width
        default: return width + (isWide(scalar) ? 2 : 1)
        }
    }
}

/// `text` followed by spaces up to `width` terminal columns (``displayWidth(_:)``); as it is
/// when it is as wide or wider.
package func paddedToWidth(_ text: String, _ width: Int) -> String {
    text + String(repeating: " ", count: max(0, width - displayWidth(text)))
}

/// Whether a terminal gives `scalar` two columns (the Wide and Fullwidth ranges of Unicode's
/// EastAsianWidth.txt, in blocks).
private func isWide(_ scalar: Unicode.Scalar) -> Bool {
    switch scalar.value {
    case 0x1100...0x115F, 0x2E80...0x303E, 0x3041...0x33FF, 0x3400...0x4DBF, 0x4E00...0x9FFF, 0xA000...0xA4CF, 0xAC00...0xD7A3,
        0xF900...0xFAFF, 0xFE30...0xFE4F, 0xFF00...0xFF60, 0xFFE0...0xFFE6, 0x1F300...0x1F64F, 0x1F900...0x1F9FF, 0x20000...0x3FFFD:
        true
    default: false
    }
}
