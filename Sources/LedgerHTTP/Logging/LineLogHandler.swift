import Foundation
import Logging

/// Writes each log message as one line to standard error (or a test's sink), formatting the metadata
/// only when a line is written.
///
/// swift-log's `StreamLogHandler` formats its metadata every time a key is set. Every request sets its
/// request id on the logger and most requests log nothing, so that formatting was a measurable part of
/// each request's CPU.
public struct LineLogHandler: LogHandler {
    /// Where finished lines go.
    public typealias Sink = @Sendable (String) -> Void

    public var metadata: Logger.Metadata = [:]
    /// The parts no request changes, in one reference: the handler then fits in a `Logger`'s inline
    /// storage, so copying a logger and setting a request's metadata on it allocate no box.
    private var output: Output
    public var logLevel: Logger.Level = .info

    public var metadataProvider: Logger.MetadataProvider? {
        get { output.metadataProvider }
        set { output = Output(label: output.label, metadataProvider: newValue, sink: output.sink) }
    }

    /// A handler for `label` writing to `sink` (standard error unless given).
    public init(label: String, metadataProvider: Logger.MetadataProvider? = nil, sink: @escaping Sink = LineLogHandler.standardError) {
        self.output = Output(label: label, metadataProvider: metadataProvider, sink: sink)
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        var merged = metadata
        // Hummingbird tags each request's logger `hb.request.id`. A line names one id, `request_id`:
        // that one, unless the client's own was set under that name (`RequestIDMiddleware`).
        if let generated = merged.removeValue(forKey: "hb.request.id"), merged["request_id"] == nil {
            merged["request_id"] = generated
        }
        if let provided = output.metadataProvider?.get(), !provided.isEmpty {
            merged.merge(provided, uniquingKeysWith: { _, provided in provided })
        }
        if let extra = event.metadata, !extra.isEmpty {
            merged.merge(extra, uniquingKeysWith: { _, extra in extra })
        }
        output.sink(Self.line(date: Date(), level: event.level, label: output.label, metadata: merged, source: event.source, message: "\(event.message)"))
    }

    /// One line: time (UTC, milliseconds), level, label, the metadata sorted by key, the source module and the message.
    ///
    /// Control characters in the metadata and the message are escaped (a line break as `\n`), so text
    /// a client sent, quoted in an error, cannot end the line and write one of its own; a value with a
    /// space, `=` or `"` is written in double quotes (`error="unknown field x"`), so it cannot pass for
    /// fields of its own (`request_id=forged`).
    public static func line(date: Date, level: Logger.Level, label: String, metadata: Logger.Metadata, source: String, message: String) -> String {
        var line = date.formatted(timestampStyle)
        line += " \(level) \(label) :"
        for key in metadata.keys.sorted() {
            if let value = metadata[key] { line += " \(escaped(key))=\(quoted(escaped("\(value)")))" }
        }
        line += " [\(source)] \(escaped(message))\n"
        return line
    }

    /// `text` with its control characters (C0, DEL, C1), line and paragraph separators and
    /// backslashes written as escapes, so a `\n` a client sent reads as `\\n`; itself when it has none.
    static func escaped(_ text: String) -> String {
        // Every byte of C1, U+2028 and U+2029 in UTF-8 is 0x80 or above; ASCII text needs no scan.
        guard text.utf8.contains(where: { $0 < 0x20 || $0 == 0x7F || $0 == UInt8(ascii: "\\") || $0 >= 0x80 }) else { return text }
        var result = ""
        var changed = false
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\n": result += "\\n"; changed = true
            case "\r": result += "\\r"; changed = true
            case "\t": result += "\\t"; changed = true
            case "\\": result += "\\\\"; changed = true
            case _ where scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value) || scalar.value == 0x2028 || scalar.value == 0x2029:
                result += "\\u{" + String(scalar.value, radix: 16) + "}"
                changed = true
            default: result.unicodeScalars.append(scalar)
            }
        }
        return changed ? result : text
    }

    /// An escaped value as it is written: in double quotes, its own escaped, when it has a space, `=`
    /// or `"` or is empty; itself otherwise.
    static func quoted(_ value: String) -> String {
        guard value.isEmpty || value.utf8.contains(where: { $0 == 0x20 || $0 == UInt8(ascii: "=") || $0 == UInt8(ascii: "\"") }) else {
            return value
        }
        return "\"" + value.replacingOccurrences(of: "\"", with: "\\\"") + "\""
    }

    private static let timestampStyle = Date.ISO8601FormatStyle(includingFractionalSeconds: true)

    /// Writes a line to standard error in one `write`, so lines from concurrent requests do not interleave.
    public static let standardError: Sink = { line in
        FileHandle.standardError.write(Data(line.utf8))
    }
}
