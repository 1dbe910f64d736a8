import Foundation

/// Splits a migration file into single statements, because both drivers prepare one statement at a time.
///
/// A statement ends at a line ending in `;`, except inside a dollar-quoted body (`$$ … $$`, PostgreSQL
/// functions) or a SQLite trigger's `BEGIN … END;` body. Whole-line `--` comments are dropped.
/// This is enough for the files in `Migrations/`; keep new migrations in that style.
enum SQLScriptSplitter {
    static func statements(in script: String) -> [String] {
        var statements: [String] = []
        var current: [Substring] = []
        var inTriggerBody = false
        var inDollarQuote = false
        for line in script.split(separator: "\n", omittingEmptySubsequences: false) {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if !inDollarQuote && (trimmed.hasPrefix("--") || (current.isEmpty && trimmed.isEmpty)) { continue }
            current.append(line)
            if line.components(separatedBy: "$$").count % 2 == 0 { inDollarQuote.toggle() }
            let upper = trimmed.uppercased()
            if !inDollarQuote && upper == "BEGIN" && current.first?.uppercased().contains("CREATE TRIGGER") == true {
                inTriggerBody = true
            }
            let ends = !inDollarQuote && (inTriggerBody ? upper == "END;" : trimmed.hasSuffix(";"))
            if ends {
                statements.append(current.joined(separator: "\n"))
                current = []
                inTriggerBody = false
            }
        }
        let rest = current.joined(separator: "\n").trimmingCharacters(in: .whitespacesAndNewlines)
        if !rest.isEmpty { statements.append(rest) }
        return statements
    }
}
