import AppStore
import Foundation

extension UserDocument: ScannedDocument {
    static func read(from scanner: inout JSONScanner) throws(JSONScanner.Unexpected) -> UserDocument {
        try scanner.readUserDocument()
    }
}

extension JSONScanner {
    fileprivate mutating func readUserDocument() throws(Unexpected) -> UserDocument {
        var position: Int64?
        var state: UserState?
        var known = KnownKeys()
        try readObject { scanner, key throws(Unexpected) in
            switch key {
            case "position": try known.mark(0); position = try scanner.readInt64()
            case "state": try known.mark(1); state = try scanner.readUserState()
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
        var hasGrants = false
        var known = KnownKeys()
        try readObject { scanner, key throws(Unexpected) in
            switch key {
            case "userId": try known.mark(0); userId = try scanner.readString()
            case "chains":
                try known.mark(1)
                var all: [String: Int64] = [:]
                try scanner.readObject { scanner, chain throws(Unexpected) in
                    guard let chain = String(validating: chain.bytes, as: UTF8.self), all[chain] == nil else { throw Unexpected() }
                    all[chain] = try scanner.readInt64()
                }
                chains = all
            // Grants take JSONDecoder: any grant makes the scan give up. The key itself is required, as
            // it is for the decoder (the writer always writes it).
            case "grants":
                try known.mark(2)
                try scanner.readObject { _, _ throws(Unexpected) in throw Unexpected() }
                hasGrants = true
            default: try scanner.skipValue()
            }
        }
        guard let userId, let chains, hasGrants else { throw Unexpected() }
        var state = UserState(userId: userId)
        state.chains = chains
        return state
    }
}
