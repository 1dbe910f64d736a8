import Foundation
@testable import Ledger

extension FuzzTarget {
    /// A stored fact or read-model document: the scanner's value must be `JSONDecoder`'s.
    static func stored(_ bytes: UnsafeRawBufferPointer) {
        guard let selector = bytes.first else { return }
        let json = Data(bytes.dropFirst())
        switch selector % 3 {
        case 0:
            guard let scanned = AppleFact.scanned(from: json) else { return }
            let decoded = decodeOrTrap(AppleFact.self, json)
            guard scanned == decoded else { fatalError("the scanner and JSONDecoder read different facts:\n\(scanned)\n\(decoded)") }
        case 1:
            guard let scanned = ChainDocument.scanned(from: json) else { return }
            let decoded = decodeOrTrap(ChainDocument.self, json)
            guard scanned == decoded else { fatalError("the scanner and JSONDecoder read different chain documents") }
        default:
            guard let scanned = UserDocument.scanned(from: json) else { return }
            let decoded = decodeOrTrap(UserDocument.self, json)
            guard scanned == decoded else { fatalError("the scanner and JSONDecoder read different user documents") }
        }
    }

    private static func decodeOrTrap<Value: Decodable>(_ type: Value.Type, _ json: Data) -> Value {
        do {
            return try JSONDecoder().decode(Value.self, from: json)
        } catch {
            fatalError("the scanner read a \(Value.self) JSONDecoder refuses: \(error)")
        }
    }
}
