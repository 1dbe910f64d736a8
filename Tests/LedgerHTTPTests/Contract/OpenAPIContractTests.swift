import AppStoreTesting
import EventStore
import EventStoreTesting
import Foundation
import Hummingbird
import Ledger
import LedgerHTTP
import Prometheus
import Testing
import Yams

@Suite("docs/openapi.yaml matches the router")
struct OpenAPIContractTests {
    static func spec() throws -> [String: Any] {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent()
        let text = try String(contentsOf: root.appendingPathComponent("docs/openapi.yaml"), encoding: .utf8)
        return try #require(try Yams.load(yaml: text) as? [String: Any])
    }

    @Test func everyRouteInTheRouterIsInTheSpecAndEveryPathInTheSpecIsRouted() async throws {
        let spec = try Self.spec()
        #expect(spec["openapi"] as? String == "3.1.0")
        let paths = try #require(spec["paths"] as? [String: [String: Any]])
        let documented = Set(paths.flatMap { path, operations in operations.keys.map { "\($0) \(path)" } })

        try await withFreshStore(.sqlite) { (fixture: StoreFixture) async throws in
            let routed = Set(try ServedRoutes.all(store: fixture.store).map { "\($0.method.rawValue.lowercased()) \($0.path)" })
            #expect(routed.count == 15)
            #expect(routed.subtracting(documented).isEmpty, "routes missing from docs/openapi.yaml: \(routed.subtracting(documented).sorted())")
            #expect(documented.subtracting(routed).isEmpty, "documented but not routed: \(documented.subtracting(routed).sorted())")
        }
    }

    /// A request body the spec closes (`additionalProperties: false`) takes exactly the fields it
    /// lists: the server refuses one more, names the spec's fields as the ones it takes, and none of
    /// them is refused as unknown.
    @Test func closedRequestBodiesTakeExactlyTheFieldsTheSpecLists() async throws {
        let paths = try #require(try Self.spec()["paths"] as? [String: [String: Any]])
        var closed: [(path: String, fields: Set<String>)] = []
        for (path, operations) in paths {
            let body = (operations["post"] as? [String: Any])?["requestBody"] as? [String: Any]
            let json = ((body?["content"] as? [String: Any])?["application/json"] as? [String: Any])?["schema"] as? [String: Any]
            guard let schema = json else { continue }
            // Apple's webhook bodies stay open (Apple adds fields); every body of the API's clients is closed.
            guard !path.hasPrefix("/v1/apple/notifications/") else {
                #expect(schema["additionalProperties"] as? Bool != false, "\(path)")
                continue
            }
            #expect(schema["additionalProperties"] as? Bool == false, "\(path) takes a client's body but does not close it")
            closed.append((path, Set((schema["properties"] as? [String: Any] ?? [:]).keys)))
        }
        let bodies = closed
        #expect(bodies.map(\.path).sorted() == ["/v1/apple/receipts", "/v1/apple/transactions", "/v1/users/{user_id}/grants", "/v1/users/{user_id}/grants/{grant_id}/revoke"])
        try await APIHarness.run(.sqlite) { h in
            for (path, fields) in bodies {
                let url = path.replacingOccurrences(of: "{user_id}", with: "u1").replacingOccurrences(of: "{grant_id}", with: "g1")
                let key = path.hasPrefix("/v1/users") ? APIHarness.adminKey : APIHarness.ingestKey
                var values = Dictionary(uniqueKeysWithValues: fields.map { ($0, "x") })
                let known = try h.object(try await h.request(.post, url, key: key, json: String(decoding: try JSONSerialization.data(withJSONObject: values), as: UTF8.self)))
                #expect((known["detail"] as? String)?.hasPrefix("unknown field") != true, "\(path): \(known)")
                values["zz_extra"] = "x"
                let extra = try h.object(try await h.request(.post, url, key: key, json: String(decoding: try JSONSerialization.data(withJSONObject: values), as: UTF8.self)))
                let detail = try #require(extra["detail"] as? String, "\(path)")
                #expect(detail.hasPrefix("unknown field \"zz_extra\"; this endpoint takes "), "\(path): \(detail)")
                let taken = detail.components(separatedBy: "takes ").last?.components(separatedBy: ", ") ?? []
                #expect(Set(taken) == fields, "\(path): the server takes \(taken.sorted()), the spec lists \(fields.sorted())")
            }
        }
    }

    /// The bodies the server writes carry exactly the fields their schemas list, every one of them
    /// required (absent ones are written as null): a field renamed or dropped on either side fails here.
    @Test func responseBodiesCarryExactlyTheFieldsTheirSchemasRequire() async throws {
        let schemas = try #require((try Self.spec()["components"] as? [String: Any])?["schemas"] as? [String: [String: Any]])
        let fields = schemas.mapValues { schema in
            (properties: Set((schema["properties"] as? [String: Any] ?? [:]).keys), required: Set(schema["required"] as? [String] ?? []))
        }
        @Sendable func check(_ body: [String: Any], is name: String) {
            let (properties, required) = fields[name] ?? ([], [])
            #expect(!properties.isEmpty, "\(name) is not a schema with properties in the spec")
            #expect(Set(body.keys) == properties, "\(name): the server wrote \(body.keys.sorted()), the spec lists \(properties.sorted())")
            #expect(required == properties, "\(name): not required in the spec: \(properties.subtracting(required).sorted())")
        }
        try await APIHarness.run(.sqlite) { h in
            _ = try await h.submit(user: "u1", APIHarness.transaction("1000", purchased: 0, expires: 30), at: 0)
            let grant = try await h.request(.post, "/v1/users/u1/grants", key: APIHarness.adminKey,
                                            json: #"{"entitlement":"basic","expires_at":"\#(Day.iso(20))","reason":"support"}"#)
            #expect(grant.status == .created)
            check(try h.object(grant), is: "Grant")
            let grantId = try #require(try h.object(grant)["grant_id"] as? String)
            h.clock.set(Day.date(1))
            let revoked = try await h.request(.post, "/v1/users/u1/grants/\(grantId)/revoke", key: APIHarness.adminKey, json: #"{"reason":"mistake"}"#)
            #expect(revoked.status == .ok)
            check(try h.object(revoked), is: "GrantRevocation")
            let list = try h.object(try await h.request(.get, "/v1/users/u1/grants", key: APIHarness.adminKey))
            check(list, is: "GrantList")
            let listed = list["grants"] as? [[String: Any]] ?? []
            #expect(listed.count == 1)
            for grant in listed { check(grant, is: "GrantStatus") }

            let view = try h.object(try await h.request(.get, "/v1/users/u1/entitlements", key: APIHarness.readKey))
            check(view, is: "EntitlementView")
            let entitlements = view["entitlements"] as? [[String: Any]] ?? []
            #expect(Set(entitlements.compactMap { $0["source"] as? String }) == ["app_store", "grant"])
            for entitlement in entitlements { check(entitlement, is: "Entitlement") }
            let subscriptions = view["subscriptions"] as? [[String: Any]] ?? []
            #expect(subscriptions.count == 1)
            for subscription in subscriptions { check(subscription, is: "Subscription") }
            check(try h.object(try await h.request(.get, "/v1/subscriptions/1000", key: APIHarness.readKey)), is: "Chain")

            let page = try h.object(try await h.request(.get, "/v1/events", key: APIHarness.readKey))
            check(page, is: "EventPage")
            let events = page["events"] as? [[String: Any]] ?? []
            #expect(events.count >= 2)
            for event in events { check(event, is: "Event") }
        }
    }
}
