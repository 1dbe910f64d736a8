/// The app an `AppleFact` is about, decoded alone from an event's data (the rest, a raw body of
/// tens of KB included, is skipped).
struct FactApp: Decodable {
    var bundleId: String?
}
