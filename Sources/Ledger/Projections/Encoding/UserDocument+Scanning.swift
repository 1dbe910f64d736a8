import Foundation

extension UserDocument {
    /// Decodes a stored user document, by `JSONScanner` when it has the shape `encodedJSON` writes
    /// without grants and by `JSONDecoder` otherwise. Every entitlement read decodes one.
    static func decode(from data: Data, decoder: JSONDecoder) throws -> UserDocument {
        if let document = scanned(from: data) { return document }
        return try decoder.decode(UserDocument.self, from: data)
    }

    /// The document read by `JSONScanner`, or nil if the text is not in the expected shape.
    static func scanned(from data: Data) -> UserDocument? {
        data.withUnsafeBytes { bytes -> UserDocument? in
            var scanner = JSONScanner(bytes)
            return try? scanner.readUserDocument()
        }
    }
}

extension JSONScanner {
    fileprivate mutating func readUserDocument() throws(Unexpected) -> UserDocument {
        var position: Int64?
        var state: UserState?
        try readObject { scanner, key throws(Unexpected) in
            switch key {
            case "position": position = try scanner.readInt64()
            case "state": state = try scanner.readUserState()
            default: try scanner.skipValue()
            }
        }
        try finish()
        guard let position, let state else { throw Unexpected() }
        return UserDocument(state: state, position: position)
    }

    private mutating func readUserState() throws(Unexpected) -> UserState {
        var userId: String?
        var chains: [String: Int64]?
        try readObject { scanner, key throws(Unexpected) in
            switch key {
            case "userId": userId = try scanner.readString()
            case "chains":
                var all: [String: Int64] = [:]
                try scanner.readObject { scanner, chain throws(Unexpected) in
                    guard let chain = String(validating: chain.bytes, as: UTF8.self) else { throw Unexpected() }
                    all[chain] = try scanner.readInt64()
                }
                chains = all
            // Grants take JSONDecoder: any grant makes the scan give up.
            case "grants": try scanner.readObject { _, _ throws(Unexpected) in throw Unexpected() }
            default: try scanner.skipValue()
            }
        }
        guard let userId, let chains else { throw Unexpected() }
        var state = UserState(userId: userId)
        state.chains = chains
        return state
    }
}
