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
