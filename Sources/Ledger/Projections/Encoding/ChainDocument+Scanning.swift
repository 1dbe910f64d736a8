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
        var known = KnownKeys()
        try readObject { scanner, key throws(Unexpected) in
            switch key {
            case "position": try known.mark(0); position = try scanner.readInt64()
            case "state": try known.mark(1); state = try scanner.readChainState()
            default: try scanner.skipValue()
            }
        }
        try finish()
        guard let position, let state else { throw Unexpected() }
        return ChainDocument(state: state, position: position)
    }

    private mutating func readChainState() throws(Unexpected) -> ChainState {
        var originalTransactionId: String?
        var renewals: [Observed<RenewalObservation>]?
        var latestRenewal: Observed<RenewalObservation>?
        var transactions: [String: Observed<TransactionObservation>]?
        var otherStreams: [String] = []
        var transactionTokens: [String: String] = [:]
        var known = KnownKeys()
        try readObject { scanner, key throws(Unexpected) in
            switch key {
            case "originalTransactionId": try known.mark(0); originalTransactionId = try scanner.readString()
            case "transactionTokens":
                // A document written before tokens were kept by transaction has an `appAccountTokens`
                // list instead, skipped: the winning observations' tokens stand in for it.
                try known.mark(1)
                try scanner.readObject { scanner, id throws(Unexpected) in
                    guard let id = String(validating: id.bytes, as: UTF8.self), transactionTokens[id] == nil else { throw Unexpected() }
                    transactionTokens[id] = try scanner.readString()
                }
            case "otherStreams":
                try known.mark(2)
                try scanner.readArray { scanner throws(Unexpected) in otherStreams.append(try scanner.readString()) }
            case "renewals":
                try known.mark(3)
                var all: [Observed<RenewalObservation>] = []
                try scanner.readArray { scanner throws(Unexpected) in
                    all.append(try scanner.readObserved { scanner throws(Unexpected) in try scanner.readRenewal() })
                }
                renewals = all
            case "renewal":
                try known.mark(4)
                // As written before renewal history was kept: the latest only, read when `renewals` is absent.
                if !(try scanner.readNull()) {
                    latestRenewal = try scanner.readObserved { scanner throws(Unexpected) in try scanner.readRenewal() }
                }
            case "transactions":
                try known.mark(5)
                var all: [String: Observed<TransactionObservation>] = [:]
                try scanner.readObject { scanner, id throws(Unexpected) in
                    guard let id = String(validating: id.bytes, as: UTF8.self), all[id] == nil else { throw Unexpected() }
                    all[id] = try scanner.readObserved { scanner throws(Unexpected) in try scanner.readTransaction() }
                }
                transactions = all
            default: try scanner.skipValue()
            }
        }
        guard let originalTransactionId, let transactions else { throw Unexpected() }
        var state = ChainState(originalTransactionId: originalTransactionId)
        state.transactions = transactions
        state.renewals = renewals ?? latestRenewal.map { [$0] } ?? []
        state.otherStreams = otherStreams
        state.transactionTokens = transactionTokens
        return state
    }

    private mutating func readObserved<Value: Codable & Hashable & Sendable>(
        _ value: (inout JSONScanner) throws(Unexpected) -> Value
    ) throws(Unexpected) -> Observed<Value> {
        var assertedAt: Int64?
        var eventID: String?
        var read: Value?
        var known = KnownKeys()
        try readObject { scanner, key throws(Unexpected) in
            switch key {
            case "assertedAt": try known.mark(0); assertedAt = try scanner.readInt64()
            case "eventID": try known.mark(1); eventID = try scanner.readString()
            case "value": try known.mark(2); read = try value(&scanner)
            default: try scanner.skipValue()
            }
        }
        guard let assertedAt, let eventID, let read else { throw Unexpected() }
        return Observed(read, assertedAt: assertedAt, eventID: eventID)
    }
}
