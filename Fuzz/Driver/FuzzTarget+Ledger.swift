import Foundation
@testable import Ledger

extension FuzzTarget {
    /// A stored fact or read-model document: the scanner's value must be `JSONDecoder`'s.
    static func stored(_ bytes: UnsafeRawBufferPointer) {
        guard let selector = bytes.first else { return }
        let json = Data(bytes.dropFirst())
        switch selector % 3 {
        case 0: agree(AppleFact.scanned(from: json), json)
        case 1: agree(ChainDocument.scanned(from: json), json)
        default: agree(UserDocument.scanned(from: json), json)
        }
    }
}
