/// How a boolean setting may be spelt, in the file and in `SUBLEDGER_*` variables alike: `true` or
/// `false`, `yes`/`no`, `on`/`off` or `1`/`0`, in any letter case.
enum BooleanSetting {
    /// `text` read as a boolean; nil when it is none of the spellings.
    static func parse(_ text: String) -> Bool? {
        switch text.lowercased() {
        case "true", "yes", "on", "1": true
        case "false", "no", "off", "0": false
        default: nil
        }
    }

    /// The refusal of `got`, which names every spelling taken: `YES` and `0` are, so "true or
    /// false" alone read as if they were not.
    static func refusal(key: String, got: String) -> ConfigurationError {
        ConfigurationError(key: key, message: "must be true or false (or yes/no, on/off, 1/0, in any letter case; got \(got))")
    }
}
