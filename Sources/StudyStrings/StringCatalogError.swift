import ErrorReporting

/// An error reading the study tool's String Catalog: a stable code, the file, the key and
/// language, why.
package struct StringCatalogError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What went wrong; the raw value is stable.
    package enum Code: String, Sendable, Equatable, CaseIterable {
        /// The catalog file cannot be read.
        case unreadable
        /// The file is not a String Catalog, or a plural variation has no CLDR category name.
        case malformed
    }

    /// What went wrong.
    package var code: Code
    /// The catalog file.
    package var file: String?
    /// The key, and the language after a slash, when the error is about one (`session.right/ru`).
    package var item: String?
    /// Why, in words.
    package var detail: String

    /// An error with its code, its place and the reason.
    package init(_ code: Code, file: String? = nil, key: String? = nil, language: String? = nil, _ detail: String) {
        self.code = code
        self.file = file
        self.item = key.map { key in language.map { key + "/" + $0 } ?? key }
        self.detail = detail
    }

    /// One line: `FILE: KEY/LANGUAGE: code: detail`, with the parts that apply.
    package var description: String {
        ([file, item].compactMap { $0 } + [code.rawValue, detail].filter { !$0.isEmpty }).joined(separator: ": ")
    }
}

extension StringCatalogError: LibraryError {
    /// `StudyStrings`.
    package static var library: String { "StudyStrings" }

    /// The code's raw value (`malformed`).
    package var codeName: String { code.rawValue }

    /// The catalog file, and the key and language.
    package var location: ErrorLocation { ErrorLocation(file: file, item: item) }

    /// None: a catalog error is where the problem is.
    package var underlyingError: (any LibraryError)? { nil }
}
