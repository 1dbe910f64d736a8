import AppStore
import EventStore
import Foundation
import Hummingbird
import Ledger
import Metrics
import NIOCore

/// Every `/v1` route: parse, authorise, call the ledger, encode. No business logic lives here.
public struct LedgerRoutes: Sendable {
    let ledger: SubscriptionLedger
    let authenticator: APIKeyAuthenticator
    let clock: any LedgerClock
    let schema: SchemaDiagnosis
    let feedStreams: FeedStreamGate

    /// Creates the routes over a ledger and the configured API keys; at most `maximumFeedStreams`
    /// NDJSON feed streams run at once.
    public init(
        ledger: SubscriptionLedger, keys: [APIKey], clock: any LedgerClock = SystemClock(),
        maximumFeedStreams: Int = LedgerApplication.Settings.defaultMaximumFeedStreams
    ) {
        self.ledger = ledger
        self.authenticator = APIKeyAuthenticator(keys: keys)
        self.clock = clock
        self.schema = SchemaDiagnosis(store: ledger.store)
        self.feedStreams = FeedStreamGate(maximum: maximumFeedStreams)
    }

    /// Adds the routes to a router.
    public func register(on router: Router<LedgerRequestContext>) {
        let v1 = router.group("v1")
        v1.post("apple/notifications/v2") { request, context in
            try await self.webhook(request, context, source: "POST /v1/apple/notifications/v2", kept: Self.keptV2) { body, ingest in
                try await self.ledger.ingestNotificationV2(body: body, context: ingest)
            }
        }
        v1.post("apple/notifications/v1") { request, context in
            try await self.webhook(request, context, source: "POST /v1/apple/notifications/v1", kept: NotificationV1.redactingPassword) { body, ingest in
                try await self.ledger.ingestNotificationV1(body: body, context: ingest)
            }
        }
        v1.post("apple/transactions") { request, context in
            let key = try authenticator.require(.ingest, request)
            return try await self.submission("POST /v1/apple/transactions", context) { source in
                let body = try await Self.decode(SubmitTransactionRequest.self, request, context)
                try Self.requireUser(body.user_id)
                return try await ledger.submitTransaction(
                    userId: body.user_id, signedTransaction: body.signed_transaction,
                    signedRenewalInfo: body.signed_renewal_info, context: Self.ingestContext(source, context, key: key)
                )
            }
        }
        v1.post("apple/receipts") { request, context in
            let key = try authenticator.require(.ingest, request)
            return try await self.submission("POST /v1/apple/receipts", context) { source in
                let body = try await Self.decode(SubmitReceiptRequest.self, request, context)
                try Self.requireUser(body.user_id)
                return try await ledger.submitReceipt(
                    userId: body.user_id, receiptData: body.receipt_data, bundleId: body.bundle_id,
                    context: Self.ingestContext(source, context, key: key)
                )
            }
        }
        v1.get("users/:user_id/entitlements") { request, context in
            try authenticator.require(.read, request)
            try Self.requireKnownQuery(request, ["at", "as_of"])
            let user = try Self.pathUser(context)
            let at = try Self.date(request, "at")
            if var asOf = try Self.date(request, "as_of") {
                // What was known at `as_of`, evaluated at `at` when given (else at `as_of`). A later
                // moment is not known yet: its answer would change as facts arrive. Up to a minute
                // ahead is a client's clock running fast, and read as now.
                let now = clock.now()
                if asOf > now {
                    guard asOf.timeIntervalSince(now) <= Self.asOfClockSkew else {
                        throw Problem(
                            status: .badRequest, code: "invalid_query", title: "Invalid query",
                            detail: "as_of is later than now (\(APIDate.string(asOf)), against the server's \(APIDate.string(now))), and the ledger cannot know what it will be told; to evaluate a later moment with what is known now, use at"
                        )
                    }
                    asOf = now
                }
                return EntitlementViewBody(try await ledger.entitlements(userId: user, asOf: asOf, at: at))
            }
            return EntitlementViewBody(try await ledger.entitlements(userId: user, at: at ?? clock.now()))
        }
        v1.get("users/:user_id/events") { request, context in
            try authenticator.require(.read, request)
            try Self.requireKnownQuery(request, ["after", "limit"])
            let user = try Self.pathUser(context)
            let page = try await ledger.userEvents(userId: user, after: try Self.cursor(request), limit: try Self.limit(request))
            return EventPageBody(events: page.events.map(EventBody.init), next_after: page.next.description)
        }
        v1.post("users/:user_id/grants") { request, context in
            let key = try authenticator.require(.admin, request)
            let user = try Self.pathUser(context)
            let body = try await Self.decode(GrantRequest.self, request, context)
            let expires: Date
            switch APIDate.read(body.expires_at) {
            case .success(let date):
                expires = date
            case .failure(let refusal):
                throw Problem(status: .badRequest, code: "malformed_body", title: "Malformed body", detail: Self.dateProblem("expires_at", body.expires_at, refusal, examples: ("2027-01-01T00:00:00Z", "2027-01-01T01:00:00+01:00")))
            }
            let grant = try await ledger.grant(
                userId: user, entitlement: body.entitlement, expiresAt: expires, reason: body.reason,
                context: Self.ingestContext("POST /v1/users/{user_id}/grants", context, key: key)
            )
            let answer = GrantBody(grant_id: grant.grantId, user_id: user, entitlement: grant.entitlement, expires_at: APIDate.string(expires), reason: grant.reason)
            return try Self.json(answer, status: .created)
        }
        v1.get("users/:user_id/grants") { request, context in
            try authenticator.require(.admin, request)
            try Self.requireKnownQuery(request, [])
            let user = try Self.pathUser(context)
            let grants = try await ledger.grants(userId: user)
            return GrantListBody(userId: user, grants: grants, at: Timestamp.milliseconds(clock.now()))
        }
        v1.post("users/:user_id/grants/:grant_id/revoke") { request, context in
            let key = try authenticator.require(.admin, request)
            let user = try Self.pathUser(context)
            // Grant ids are lowercase UUIDs; one copied in upper case names the same grant.
            let grantId = try Self.pathParameter(context, "grant_id").lowercased()
            let body = try await Self.decode(RevokeGrantRequest.self, request, context)
            let revocation = try await ledger.revokeGrant(
                userId: user, grantId: grantId, reason: body.reason,
                context: Self.ingestContext("POST /v1/users/{user_id}/grants/{grant_id}/revoke", context, key: key)
            )
            return GrantRevocationBody(revocation)
        }
        v1.get("subscriptions/:original_transaction_id") { request, context in
            try authenticator.require(.read, request)
            try Self.requireKnownQuery(request, ["at"])
            let chain = try Self.pathParameter(context, "original_transaction_id")
            let asked = try Self.date(request, "at")
            guard let evaluation = try await ledger.chain(originalTransactionId: chain, at: asked ?? clock.now()) else {
                let when = asked.map { " bought by \(APIDate.string($0))" } ?? ""
                // A renewal's own transaction id is the likely mistake: the path takes the chain's.
                throw Problem(
                    status: .notFound, code: "not_found", title: "Not found",
                    detail: "no subscription with original transaction id \(chain)\(when); a subscription is named by its first purchase's id (originalTransactionId), not by a renewal's transactionId"
                )
            }
            return ChainBody(evaluation, owner: try await ledger.chainOwner(originalTransactionId: chain))
        }
        v1.get("rejections") { request, context in
            // Admin: the bodies are anyone's posts to the webhooks, kept for the operators.
            try authenticator.require(.admin, request)
            try Self.requireKnownQuery(request, ["limit"])
            return RejectionListBody(try await ledger.store.rejections(limit: try Self.limit(request)))
        }
        v1.get("events") { request, context in
            try authenticator.require(.read, request)
            try Self.requireKnownQuery(request, ["after", "limit"])
            let after = try Self.cursor(request) ?? .start
            let limit = try Self.limit(request)
            if FeedFormat(accept: request.headers[.accept]) == .ndjson {
                guard let permit = feedStreams.enter() else { throw Problem.tooManyStreams(maximum: feedStreams.maximum) }
                return try await Self.ndjson(ledger: ledger, after: after, permit: permit)
            }
            let page = try await ledger.events(after: after, limit: limit)
            return try Self.json(EventPageBody(events: page.events.map(EventBody.init), next_after: page.next.description), status: .ok)
        }
    }

    /// What of a body refused at the V2 endpoint is stored: a V1 body posted there by mistake
    /// carries the shared secret, so every `password` value is redacted as at the V1 endpoint. The
    /// rewrite leaves every other byte as sent. A body in UTF-16 or UTF-32 is read as its text first
    /// (in its bytes a password's name has NULs between the letters, so no scan of them finds it); one
    /// not valid in that encoding is not kept. UTF-8 with a NUL byte, which the V1 redaction would
    /// re-encode or replace (it is not JSON), is kept as sent unless it may name a password.
    static func keptV2(_ body: Data) -> Data {
        guard let text = JSONTextEncoding.utf8(body) else { return NotificationV1.redactingPassword(in: body) }
        return text.contains(0) && !NotificationV1.mayNamePassword(text) ? text : NotificationV1.redactingPassword(in: text)
    }

    /// A webhook: verification and password failures are answered 400/401 and recorded as rejections,
    /// never as events; a store failure is 503 so Apple retries. `kept` is what of a refused body
    /// may be stored (the V1 routes drop passwords).
    private func webhook(
        _ request: Request,
        _ context: LedgerRequestContext,
        source: String,
        kept: (Data) -> Data = { $0 },
        _ ingest: (Data, IngestContext) async throws -> IngestResult
    ) async throws -> IngestBody {
        let buffer: ByteBuffer
        do {
            buffer = try await Self.collectBody(request, context)
        } catch {
            // Not filed as a rejection (the body was not read whole), but counted as every other
            // outcome is: a 413 went uncounted here while a submission's was.
            Self.countIngest(source, result: Problem(error).code)
            throw error
        }
        let body = Data(buffer: buffer)
        do {
            let result = try await ingest(body, Self.ingestContext(source, context))
            let outcome = Self.outcome(isDuplicate: result.isDuplicate)
            Self.countIngest(source, result: outcome)
            // At debug level: a line for every accepted webhook would cost the busiest path a
            // write, and the event itself is the record; an operator tracing one turns it on.
            context.logger.debug("ingested", metadata: [
                "endpoint": "\(source)", "result": "\(outcome)", "event_id": "\(result.eventID)", "position": "\(result.position)",
            ])
            return IngestBody(result: outcome, event_id: result.eventID, position: result.position)
        } catch {
            var problem = await schema.refine(Problem(error))
            if (400..<500).contains(problem.statusCode) {
                do {
                    try await ledger.store.recordRejection(
                        source: source, code: problem.code, detail: problem.detail, body: kept(body), requestID: context.requestID
                    )
                } catch {
                    // Not kept, the refusal would leave no trace but this line. When the store is down
                    // or lacks its tables (--no-migrate), the answer is its 503 instead, as for every
                    // other request then: Apple sends the body again, and its refusal is kept then.
                    let failure = await schema.refine(Problem(error))
                    context.logger.warning("could not record a rejection", metadata: ["error": "\(error)", "refused": "\(problem.code)"])
                    if failure.statusCode == 503 { problem = failure }
                }
            }
            Self.countIngest(source, result: problem.code)
            throw problem
        }
    }

    /// A client's submission (transaction or receipt): answers the user's view, and counts the
    /// outcome in `subledger_ingest_total` as webhooks are counted (`recorded`, `duplicate`, or the
    /// problem's code).
    private func submission(
        _ source: String, _ context: LedgerRequestContext, _ submit: (String) async throws -> SubmissionResult
    ) async throws -> EntitlementViewBody {
        do {
            let result = try await submit(source)
            let outcome = Self.outcome(isDuplicate: result.isDuplicate)
            Self.countIngest(source, result: outcome)
            context.logger.debug("ingested", metadata: ["endpoint": "\(source)", "result": "\(outcome)", "user_id": "\(result.entitlements.userId)"])
            return EntitlementViewBody(result.entitlements)
        } catch {
            // Counted with the code it is answered with. Thrown as it is unless the schema explains
            // it, so its log line keeps the original error (and the schema is asked once).
            let problem = Problem(error)
            let refined = await schema.refine(problem)
            Self.countIngest(source, result: refined.code)
            if refined.code != problem.code { throw refined }
            throw error
        }
    }

    /// The result an accepted input is counted and answered with.
    private static func outcome(isDuplicate: Bool) -> String {
        isDuplicate ? "duplicate" : "recorded"
    }

    /// One ingest outcome per endpoint and result (`recorded`, `duplicate` or an error code).
    private static func countIngest(_ source: String, result: String) {
        Counter(label: "subledger_ingest_total", dimensions: [("endpoint", source), ("result", result)]).increment()
    }

    static func ingestContext(_ source: String, _ context: LedgerRequestContext, key: APIKey? = nil) -> IngestContext {
        IngestContext(source: source, requestID: context.requestID, apiKey: key?.name)
    }

    static func decode<T: RequestBody>(_ type: T.Type, _ request: Request, _ context: LedgerRequestContext) async throws -> T {
        let buffer = try await Self.collectBody(request, context)
        guard buffer.readableBytes > 0 else {
            throw Problem(status: .badRequest, code: "malformed_body", title: "Malformed body", detail: "the body is empty; this endpoint takes a JSON object")
        }
        let body = Data(buffer: buffer)
        // One scan finds where the text stops being JSON (the decoder lets a trailing comma and a
        // field given twice pass, keeping the first where a proxy in front may have read the last;
        // neither is JSON to every reader) and lists the fields, so the body is parsed twice in all.
        let scan = JSONSyntaxFault.scanAccepting(body)
        do {
            if let fault = scan.fault {
                // Said before any fault of the fields; the decoder tells whether the text is also
                // another kind of value than an object (`summary(of:)` says both then).
                _ = try JSONDecoder().decode(T.self, fromUntrusted: body)
                throw Problem.notJSON(fault)
            }
            // Unknown fields before the decode: a misspelt required one is named as sent, not only as missing.
            if let sent = scan.fieldNames {
                // Every unknown name, quoted as JSON writes it (an empty or odd name stays visible).
                let unknown = Set(sent).subtracting(T.fieldNames).sorted()
                if !unknown.isEmpty {
                    let names = unknown.prefix(10).map { Self.quotedName(Problem.bounded($0, to: 64)) }.joined(separator: ", ")
                    let more = unknown.count > 10 ? " and \(unknown.count - 10) more" : ""
                    // A body meant for another endpoint (a webhook's, the other submission's) says where.
                    let elsewhere = LedgerError.Input.told(byFields: unknown).map { "; the body is \($0.summary): post it to \($0.endpoint)" } ?? ""
                    throw Problem(
                        status: .badRequest, code: "malformed_body", title: "Malformed body",
                        detail: "unknown field\(unknown.count == 1 ? "" : "s") \(names)\(more); this endpoint takes \(T.fieldNames.joined(separator: ", "))\(elsewhere)"
                    )
                }
            }
            return try JSONDecoder().decode(T.self, fromUntrusted: body)
        } catch let error as DecodingError {
            throw Problem.malformedBody(error, body: body)
        }
    }

    /// The request's body, up to the 1 MiB limit. A body whose `Content-Length` is over the limit is
    /// refused before any of it is read: a client that waits for `100 Continue` (which
    /// ``ExpectContinueHandler`` then does not send) is spared the upload, and another is answered
    /// at once rather than at the 1 MiB mark.
    static func collectBody(_ request: Request, _ context: LedgerRequestContext) async throws -> ByteBuffer {
        if let length = ContentLength(request.headers[values: .contentLength]), length.bytes > context.maxUploadSize {
            // The header's text, not the number read from it: past Int's range that is Int.max.
            throw Problem(
                status: .contentTooLarge, code: "payload_too_large", title: "Payload too large",
                detail: "the body is \(Problem.bounded(String(length.text), to: 40)) bytes by its Content-Length, and request bodies are limited to \(context.maxUploadSize) bytes"
            )
        }
        return try await request.body.collect(upTo: context.maxUploadSize)
    }

    /// A field name in double quotes with JSON's escapes, as the client wrote it.
    static func quotedName(_ name: String) -> String {
        (try? LedgerRequestContext.jsonEncoder.encode(name)).map { String(decoding: $0, as: UTF8.self) } ?? "\"\(name)\""
    }

    static func requireUser(_ user: String) throws {
        if let problem = Self.problem(withIdentifier: user, named: "user_id") {
            throw Problem(status: .badRequest, code: "malformed_body", title: "Malformed body", detail: problem)
        }
    }

    /// The `user_id` of the path, percent-decoded and held to the rules a submitted one meets.
    static func pathUser(_ context: LedgerRequestContext) throws -> String {
        try pathParameter(context, "user_id")
    }

    /// A path parameter, percent-decoded (the router matches the raw path, so `alice%40x.com` arrives
    /// encoded) and checked like an id in a body (`SubscriptionLedger.isUserId`).
    static func pathParameter(_ context: LedgerRequestContext, _ name: String) throws -> String {
        let raw = try context.parameters.require(name)
        // Most ids have no escape, and are used as they are.
        guard let decoded = raw.utf8.contains(UInt8(ascii: "%")) ? PercentDecoding.decode(raw) : raw else {
            throw Problem(status: .badRequest, code: "invalid_path", title: "Invalid path", detail: "\(name) is not valid percent-encoded UTF-8")
        }
        if let problem = Self.problem(withIdentifier: decoded, named: name) {
            throw Problem(status: .badRequest, code: "invalid_path", title: "Invalid path", detail: problem)
        }
        return decoded
    }

    /// What is wrong with an id a client chose, or nil: it must be 1 to 256 code points in Unicode
    /// Normalization Form C without control characters, so it can always be named in a path, stored
    /// as text, and told from another id by its bytes.
    static func problem(withIdentifier id: String, named name: String) -> String? {
        SubscriptionLedger.isUserId(id) ? nil : "\(name) must be 1 to 256 code points in Unicode Normalization Form C, none of them control characters"
    }

    /// How far ahead of the server's clock an `as_of` may be and still be read as now, in seconds.
    static let asOfClockSkew: TimeInterval = 60

    static func date(_ request: Request, _ name: String) throws -> Date? {
        guard let text = request.uri.queryParameters[Substring(name)] else { return nil }
        switch APIDate.read(String(text)) {
        case .success(let date):
            return date
        case .failure(let refusal):
            throw Problem(status: .badRequest, code: "invalid_query", title: "Invalid query", detail: Self.dateProblem(name, String(text), refusal))
        }
    }

    /// What a refused query value was read as, for the end of its detail: `got <value>` (up to 40
    /// characters, so a value mangled on the way, such as an unencoded `+`, shows), or `it is empty`.
    static func echo(_ text: some StringProtocol) -> String {
        text.isEmpty ? "it is empty" : "got \(Problem.bounded(String(text), to: 40))"
    }

    /// Why a date a client sent is refused, ending with ``echo(_:)`` of it; `examples` are values the
    /// field would take, in UTC and with an offset.
    static func dateProblem(
        _ name: String, _ text: String, _ refusal: APIDate.Refusal,
        examples: (String, String) = ("2026-11-21T10:00:00Z", "2026-11-21T11:00:00+01:00")
    ) -> String {
        let got = Self.echo(text)
        switch refusal {
        case .form:
            return "\(name) must be an RFC 3339 date-time, like \(examples.0) or \(examples.1) (\(got))"
        case .field(let reason):
            return "\(name) names no real moment: \(reason) (\(got))"
        case .range:
            return "\(name) is out of range: the API names moments in years 0001 to 9999, in UTC (\(got))"
        }
    }

    /// Refuses a query parameter the route does not take, or one given twice: a misspelt `as_of`,
    /// one the route lacks (a subscription has no `as_of`) or a second `at` was ignored, and the
    /// answer read as if it had been applied. An empty name (`&&`) is no parameter.
    static func requireKnownQuery(_ request: Request, _ known: [String]) throws {
        var seen: Set<Substring> = []
        for (name, _) in request.uri.queryParameters where !name.isEmpty {
            guard known.contains(String(name)) else {
                throw Problem(
                    status: .badRequest, code: "invalid_query", title: "Invalid query",
                    detail: "unknown query parameter \(name); this endpoint takes " + (known.isEmpty ? "no query parameters" : known.joined(separator: ", "))
                )
            }
            guard seen.insert(name).inserted else {
                throw Problem(status: .badRequest, code: "invalid_query", title: "Invalid query", detail: "\(name) is given more than once")
            }
        }
    }

    /// The `after` cursor: exactly a `next_after` value (`<transaction>-<position>`). A bare position
    /// is refused: in PostgreSQL events are ordered by transaction first, so it would start over.
    static func cursor(_ request: Request) throws -> EventCursor? {
        guard let text = request.uri.queryParameters["after"] else { return nil }
        guard text.contains("-"), let cursor = EventCursor(String(text)) else {
            // A bare position is a natural guess (the events carry one), so say why it is not enough.
            let got = Self.echo(text)
            let parts = text.split(separator: "-", omittingEmptySubsequences: false)
            let detail = if !text.isEmpty && text.isASCIIDigits {
                "after must be a cursor from next_after, like 812-40 (0-0 for the start), not a bare position: "
                    + "the feed is in commit order, and a position alone does not say where to resume (\(got))"
            } else if parts.count == 2, parts.allSatisfy({ !$0.isEmpty && $0.isASCIIDigits }) {
                // The form is right; a number is past what a cursor holds (no next_after is).
                "after is out of range: a cursor's transaction is at most \(UInt64.max) and its position at most \(Int64.max) (\(got))"
            } else {
                "after must be a cursor from next_after, like 812-40 (0-0 for the start; \(got))"
            }
            throw Problem(status: .badRequest, code: "invalid_query", title: "Invalid query", detail: detail)
        }
        return cursor
    }

    static func limit(_ request: Request) throws -> Int {
        guard let text = request.uri.queryParameters["limit"] else { return 100 }
        // Digits only, as the spec says, and no leading zeros: not a form any client needs.
        guard text.isASCIIDigits, text.first != "0", let limit = Int(text), (1...1000).contains(limit) else {
            throw Problem(
                status: .badRequest, code: "invalid_query", title: "Invalid query",
                detail: "limit must be a whole number from 1 to 1000 in plain digits, without a sign or leading zeros (\(Self.echo(text)))"
            )
        }
        return limit
    }

    static func json(_ value: some Encodable, status: HTTPResponse.Status) throws -> Response {
        let encoder = LedgerRequestContext.jsonEncoder
        return Response(
            status: status,
            headers: [.contentType: "application/json; charset=utf-8"],
            body: .init(byteBuffer: ByteBuffer(bytes: try encoder.encode(value)))
        )
    }

    /// Streams every event after `after` as one JSON object per line, until caught up. The first page
    /// is read before the answer starts, so a database that cannot be reached is a 503 problem, not
    /// a 200 cut short.
    ///
    /// What a stream holds is bounded by `ndjsonPage` events read and `ndjsonChunk` bytes encoded:
    /// a write waits while the connection cannot take more, and the next page is read only after.
    /// With pages of 500 encoded whole, a reader that took nothing held about 33 MB of a feed of
    /// Apple-sized events until the stall timeout (security walkthrough).
    ///
    /// The stream keeps `permit`, its place among the open streams, until it ends.
    static func ndjson(ledger: SubscriptionLedger, after: EventCursor, permit: FeedStreamGate.Permit) async throws -> Response {
        let first = try await ledger.events(after: after, limit: ndjsonPage)
        let body = ResponseBody { writer in
            defer { withExtendedLifetime(permit) {} }
            let encoder = LedgerRequestContext.jsonEncoder
            var page = first
            while !page.events.isEmpty {
                var buffer = ByteBuffer()
                for event in page.events {
                    buffer.writeBytes(try encoder.encode(EventBody(event)))
                    buffer.writeInteger(UInt8(ascii: "\n"))
                    if buffer.readableBytes >= ndjsonChunk {
                        try await writer.write(buffer)
                        buffer = ByteBuffer()
                    }
                }
                if buffer.readableBytes > 0 { try await writer.write(buffer) }
                page = try await ledger.events(after: page.next, limit: ndjsonPage)
            }
            try await writer.finish(nil)
        }
        return Response(status: .ok, headers: [.contentType: "application/x-ndjson"], body: body)
    }

    /// Events the NDJSON stream reads at a time (an Apple notification's event is about 20 KB).
    static let ndjsonPage = 50
    /// Encoded lines the NDJSON stream gathers before it writes them.
    static let ndjsonChunk = 64 << 10
}
