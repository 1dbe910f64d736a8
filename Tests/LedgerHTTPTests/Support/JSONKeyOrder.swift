import Testing

/// The order of keys in a JSON text as the server wrote it, which a parsed dictionary does not keep:
/// for the checks that answers promising sorted keys keep them sorted at every depth.
enum JSONKeyOrder {
    /// The keys of every object in a JSON text, in the order the text writes them (a parsed
    /// dictionary keeps none), each object's list ending where the object does, so inner objects
    /// come before the ones holding them. Keys are taken as written, escapes and all: the API's
    /// have none.
    static func objectKeys(in json: String) -> [[String]] {
        let bytes = Array(json.utf8)
        let quote = UInt8(ascii: "\""), backslash = UInt8(ascii: "\\")
        let whitespace: Set<UInt8> = [UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\n"), UInt8(ascii: "\r")]
        var finished: [[String]] = []
        var open: [[String]] = []
        var index = 0
        while index < bytes.count {
            switch bytes[index] {
            case UInt8(ascii: "{"):
                open.append([])
                index += 1
            case UInt8(ascii: "}"):
                if let keys = open.popLast() { finished.append(keys) }
                index += 1
            case quote:
                // A string, skipped whole so brackets and quotes in it count for nothing; a key
                // when a colon follows it.
                var end = index + 1
                while end < bytes.count, bytes[end] != quote {
                    end += bytes[end] == backslash ? 2 : 1
                }
                let text = String(decoding: bytes[(index + 1)..<min(end, bytes.count)], as: UTF8.self)
                var next = end + 1
                while next < bytes.count, whitespace.contains(bytes[next]) { next += 1 }
                if next < bytes.count, bytes[next] == UInt8(ascii: ":"), !open.isEmpty {
                    open[open.count - 1].append(text)
                }
                index = next
            default:
                index += 1
            }
        }
        return finished
    }

    /// Checks that every object in `json` lists its keys as the server's encoder sorts them (by their
    /// UTF-8 bytes), and returns how many objects it checked.
    static func expectSortedKeys(_ json: String, _ what: String, sourceLocation: SourceLocation = #_sourceLocation) -> Int {
        let objects = objectKeys(in: json)
        for keys in objects {
            let sorted = keys.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
            #expect(keys == sorted, "\(what): keys \(keys) are not sorted", sourceLocation: sourceLocation)
        }
        return objects.count
    }
}
