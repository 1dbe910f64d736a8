import Foundation
@testable import Ledger

extension FuzzTarget {
    /// A stored fact or read-model document: the scanner's value must be `JSONDecoder`'s.
    static func stored(_ bytes: UnsafeRawBufferPointer) {
        pick(bytes, [
            { agree(AppleFact.scanned(from: $0), $0) },
            { agree(ChainDocument.scanned(from: $0), $0) },
            { agree(UserDocument.scanned(from: $0), $0) },
        ])
    }
}
