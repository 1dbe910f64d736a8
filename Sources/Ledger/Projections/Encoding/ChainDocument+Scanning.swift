import AppStore
import Foundation

extension ChainDocument: ScannedDocument {
    static func read(from scanner: inout JSONScanner) throws(JSONScanner.Unexpected) -> ChainDocument {
        try scanner.readChainDocument()
    }
}

extension JSONScanner {
    fileprivate mutating func readChainDocument() throws(Unexpected) -> ChainDocument {
        var position: Int64?
        var state: ChainState?
        try readObject { scanner, key throws(Unexpected) in
            switch key {
            case "position": position = try scanner.readInt64()
            case "state": state = try scanner.readChainState()
            default: try scanner.skipValue()
            }
        }
        try finish()
        guard let position, let state else { throw Unexpected() }
        return ChainDocument(state: state, position: position)
    }

    private mutating func readChainState() throws(Unexpected) -> ChainState {
        var originalTransactionId: String?
        var renewals: [Observed<RenewalObservation>] = []
        var transactions: [String: Observed<TransactionObservation>]?
        var otherStreams: [String] = []
        var appAccountTokens: [String] = []
        try readObject { scanner, key throws(Unexpected) in
            switch key {
            case "originalTransactionId": originalTransactionId = try scanner.readString()
            case "appAccountTokens":
                try scanner.readArray { scanner throws(Unexpected) in appAccountTokens.append(try scanner.readString()) }
            case "otherStreams":
                try scanner.readArray { scanner throws(Unexpected) in otherStreams.append(try scanner.readString()) }
            case "renewals":
                try scanner.readArray { scanner throws(Unexpected) in
                    renewals.append(try scanner.readObserved { scanner throws(Unexpected) in try scanner.readRenewal() })
                }
            case "renewal":
                // As written before renewal history was kept: the latest only.
                if !(try scanner.readNull()) {
                    renewals = [try scanner.readObserved { scanner throws(Unexpected) in try scanner.readRenewal() }]
                }
            case "transactions":
                var all: [String: Observed<TransactionObservation>] = [:]
                try scanner.readObject { scanner, id throws(Unexpected) in
                    guard let id = String(validating: id.bytes, as: UTF8.self) else { throw Unexpected() }
                    all[id] = try scanner.readObserved { scanner throws(Unexpected) in try scanner.readTransaction() }
                }
                transactions = all
            default: try scanner.skipValue()
            }
        }
        guard let originalTransactionId, let transactions else { throw Unexpected() }
        var state = ChainState(originalTransactionId: originalTransactionId)
        state.transactions = transactions
        state.renewals = renewals
        state.otherStreams = otherStreams
        state.appAccountTokens = appAccountTokens
        return state
    }

    private mutating func readObserved<Value: Codable & Hashable & Sendable>(
        _ value: (inout JSONScanner) throws(Unexpected) -> Value
    ) throws(Unexpected) -> Observed<Value> {
        var assertedAt: Int64?
        var eventID: String?
        var read: Value?
        try readObject { scanner, key throws(Unexpected) in
            switch key {
            case "assertedAt": assertedAt = try scanner.readInt64()
            case "eventID": eventID = try scanner.readString()
            case "value": read = try value(&scanner)
            default: try scanner.skipValue()
            }
        }
        guard let assertedAt, let eventID, let read else { throw Unexpected() }
        return Observed(read, assertedAt: assertedAt, eventID: eventID)
    }
}
