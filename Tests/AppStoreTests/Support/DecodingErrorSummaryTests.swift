import AppStore
import Foundation
import Testing

/// `DecodingError.summary` names the field and the JSON it must hold, for every kind of value, so a
/// client reads "quantity must be an integer" rather than the decoder's Swift description.
struct DecodingErrorSummaryTests {
    struct Item: Decodable {
        var id: String
    }

    struct Toggle: Decodable {
        var on: Bool
    }

    struct Shape: Decodable {
        var name: String?
        var count: Int?
        var price: Double?
        var flag: Bool?
        var items: [Item]?
        var item: Item?
        var date: Date?
        var toggle: Toggle?
    }

    @Test(arguments: [
        (#"{"name":7}"#, "name must be a string"),
        (#"{"count":"7"}"#, "count must be an integer"),
        (#"{"count":null,"price":"cheap"}"#, "price must be a number"),
        (#"{"flag":"yes"}"#, "flag must be true or false"),
        (#"{"toggle":{"on":null}}"#, "toggle.on must be true or false, not null"),
        (#"{"items":{}}"#, "items must be an array"),
        (#"{"item":[]}"#, "item must be an object"),
        (#"{"items":[{"id":"a"},{"id":2}]}"#, "items[1].id must be a string"),
        (#"{"items":[{"id":null}]}"#, "items[0].id must be a string, not null"),
        (#"{"items":[{}]}"#, "missing field items[0].id"),
        (#"{"date":"today"}"#, "date must be a number"),
        (#"{"name":"#, "not valid JSON"),
    ])
    func aFieldsFaultIsSaidInJSONsWords(_ json: String, _ said: String) throws {
        do {
            _ = try JSONDecoder().decode(Shape.self, from: Data(json.utf8))
            Issue.record("\(json) decoded")
        } catch let error as DecodingError {
            #expect(error.summary == said, "\(json)")
        }
    }

    /// A type with no JSON name (one a model's own `init(from:)` reports) falls back to where the
    /// fault is, with the same path spelling.
    @Test func aTypeWithoutAJSONNameFallsBackToThePath() {
        struct Key: CodingKey {
            var stringValue: String
            var intValue: Int?
            init(stringValue: String) { self.stringValue = stringValue }
            init(intValue: Int) {
                self.stringValue = "Index \(intValue)"
                self.intValue = intValue
            }
        }
        let path: [any CodingKey] = [Key(stringValue: "items"), Key(intValue: 0), Key(stringValue: "offer")]
        let error = DecodingError.typeMismatch(Item.self, .init(codingPath: path, debugDescription: "Expected to decode Item"))
        #expect(error.summary == "wrong type at items[0].offer")
    }
}
