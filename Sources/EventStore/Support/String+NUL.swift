extension String {
    /// Whether the text holds U+0000, which no stored name can: PostgreSQL refuses such text even
    /// in a comparison, and SQLite reads it back cut at the NUL.
    var holdsNUL: Bool { utf8.contains(0) }
}
