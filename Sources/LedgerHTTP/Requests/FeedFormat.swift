import Foundation

/// The form `GET /v1/events` answers in, chosen from the request's `Accept` header.
enum FeedFormat: Equatable {
    /// One page as a JSON object (the default).
    case page
    /// Every event after the cursor, one JSON object per line (`application/x-ndjson`).
    case ndjson

    /// NDJSON when the header names `application/x-ndjson` (in any case) with a quality above 0 and
    /// at least that of `application/json` or a wildcard; a page otherwise.
    init(accept: String?) {
        var ndjson = 0.0
        var json = 0.0
        for range in (accept ?? "").split(separator: ",") {
            let parameters = range.split(separator: ";")
            guard let type = parameters.first?.trimmingCharacters(in: .whitespaces).lowercased() else { continue }
            var quality = 1.0
            for parameter in parameters.dropFirst() {
                let pair = parameter.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
                if pair.count == 2, pair[0].lowercased() == "q", let value = Double(pair[1]) { quality = value }
            }
            switch type {
            case "application/x-ndjson": ndjson = max(ndjson, quality)
            case "application/json", "application/*", "*/*": json = max(json, quality)
            default: break
            }
        }
        self = ndjson > 0 && ndjson >= json ? .ndjson : .page
    }
}
