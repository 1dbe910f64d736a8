/// What a related-documents read names besides its document: the JSON member path to the related
/// keys, and the related documents' model. Both stores read any step the same way (SQLite's quoted
/// path step takes `\"` and `\\` for a quote and a backslash; PostgreSQL takes the step as given);
/// a step or a model holding U+0000 is refused alike, as `invalid_event`, before any statement.
enum MemberPath {
    /// Refuses a read whose `path` or `relatedModel` holds U+0000, which neither store can ask for.
    static func require(_ path: [String], relatedModel: String) throws(EventStoreError) {
        try StoredName.require(relatedModel, field: "a related model")
        for step in path where step.utf8.contains(0) {
            throw EventStoreError(.invalidEvent, "a JSON path step must not hold U+0000 (NUL): \(step.debugDescription)")
        }
    }

    /// The path in SQLite's syntax: every step quoted, so one with a dot or a bracket is still one
    /// step, with its backslashes and quotes escaped, so one with those is still that member.
    static func sqlite(_ path: [String]) -> String {
        "$" + path.map { step in
            var quoted = "."
            quoted.unicodeScalars.append("\"")
            for scalar in step.unicodeScalars {
                if scalar == "\\" || scalar == "\"" { quoted.unicodeScalars.append("\\") }
                quoted.unicodeScalars.append(scalar)
            }
            quoted.unicodeScalars.append("\"")
            return quoted
        }.joined()
    }
}
