/// Reads one sample from `/metrics` text.
enum MetricsSample {
    /// The value of `series` (its name and labels as `/metrics` writes them) read as a number from
    /// its whole line, or nil if no line is that series: a count of 1 is not also met by 10 to 19,
    /// as a search for the text `} 1` was.
    static func value(_ series: String, in metrics: String) -> Double? {
        for line in metrics.split(separator: "\n") where line.hasPrefix(series + " ") {
            return Double(line.dropFirst(series.count + 1))
        }
        return nil
    }
}
