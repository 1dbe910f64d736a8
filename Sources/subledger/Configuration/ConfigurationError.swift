/// A configuration problem found at start, naming the key (or environment variable) at fault.
struct ConfigurationError: Error, CustomStringConvertible, Equatable {
    /// The dotted key, or the environment variable, that is wrong.
    var key: String
    /// What is wrong with it.
    var message: String

    var description: String { "configuration: \(key): \(message)" }
}
