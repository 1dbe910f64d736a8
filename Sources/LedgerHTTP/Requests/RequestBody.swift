/// A body a client of the API sends (not Apple's webhooks, which gain fields over time). Its fields
/// are all known, so one the endpoint does not take is refused rather than ignored: a misspelt
/// `signedRenewalInfo` would otherwise record a transaction without its renewal info and answer 200.
protocol RequestBody: Decodable, Sendable {
    /// Every field the body may carry, as the decoder reads them.
    associatedtype Field: CodingKey & CaseIterable
}

extension RequestBody {
    /// The field names, in declaration order, for an answer that lists them.
    static var fieldNames: [String] { Field.allCases.map(\.stringValue) }
}
