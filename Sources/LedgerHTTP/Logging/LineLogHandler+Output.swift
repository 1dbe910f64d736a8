import Logging

extension LineLogHandler {
    /// Where a handler's lines go and what names them; shared by every copy of the handler.
    final class Output: Sendable {
        let label: String
        let metadataProvider: Logger.MetadataProvider?
        let sink: Sink

        init(label: String, metadataProvider: Logger.MetadataProvider?, sink: @escaping Sink) {
            self.label = label
            self.metadataProvider = metadataProvider
            self.sink = sink
        }
    }
}
