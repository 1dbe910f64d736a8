#!/usr/bin/env python3
"""Writes the seed inputs of each `scripts/fuzz` target into CORPUS_ROOT/<target>/.

Seeds come from the test fixtures (Apple's sample and real payloads, Xcode's receipts) plus a few
hand-written bodies, so libFuzzer starts from the shapes the parsers see in production.
"""
import base64
import hashlib
import json
import os
import pathlib
import sys

root = pathlib.Path(sys.argv[1])
fixtures = pathlib.Path(__file__).resolve().parents[2] / "Tests" / "AppStoreTests" / "Fixtures"


def write(target, data):
    folder = root / target
    folder.mkdir(parents=True, exist_ok=True)
    if isinstance(data, str):
        data = data.encode()
    (folder / hashlib.sha1(data).hexdigest()).write_bytes(data)


def b64url_decode(segment):
    return base64.urlsafe_b64decode(segment + "=" * (-len(segment) % 4))


jws_texts = []
for path in sorted(fixtures.rglob("*")):
    if not path.is_file() or path.suffix in (".der", ".key", ".pem", ".p8", ".cer", ".md"):
        continue
    text = path.read_text(errors="ignore").strip()
    if text.count(".") == 2 and text.startswith("eyJ"):
        jws_texts.append(text)
    elif path.suffix == ".json":
        try:
            value = json.loads(text)
        except ValueError:
            continue
        signed = value.get("signedPayload") if isinstance(value, dict) else None
        if isinstance(signed, str) and signed.count(".") == 2:
            jws_texts.append(signed)
        # Sample payloads: 0 notification, 1 transaction, 2 renewal info (AppTransactions have no scanner).
        name = path.stem.lower()
        selector = 0 if "notification" in name else 1 if "transaction" in name and "app" not in name else 2 if "renewal" in name else None
        if selector is not None:
            write("payload", bytes([selector]) + text.encode())

for text in jws_texts:
    write("jws", text)
    write("notification-body", json.dumps({"signedPayload": text}))
    write("notification-body", '{ "signedPayload" : "%s" }\n' % text)
    header, payload, signature = text.split(".")
    for segment in (header, signature):
        write("base64", segment)
    try:
        decoded = json.loads(b64url_decode(payload))
    except ValueError:
        continue
    kind = 0 if "notificationType" in decoded else 2 if "autoRenewStatus" in decoded else 1 if "transactionId" in decoded else None
    if kind is not None:
        write("payload", bytes([kind]) + json.dumps(decoded, separators=(",", ":")).encode())
    nested = decoded.get("data", {}) if isinstance(decoded.get("data"), dict) else {}
    for key, selector in (("signedTransactionInfo", 1), ("signedRenewalInfo", 2)):
        inner = nested.get(key)
        if isinstance(inner, str) and inner.count(".") == 2:
            write("jws", inner)
            try:
                write("payload", bytes([selector]) + b64url_decode(inner.split(".")[1]))
            except ValueError:
                pass

for path in sorted((fixtures / "xcode").glob("xcode-app-receipt-*")):
    try:
        write("receipt", base64.b64decode(path.read_text().strip()))
    except ValueError:
        pass

receipt_info = {"original_transaction_id": "1000000000000001", "transaction_id": "1000000000000002",
                "product_id": "pro.monthly", "purchase_date_ms": "1700000000000", "expires_date_ms": "1702592000000"}
write("redaction", json.dumps({"notification_type": "DID_RENEW", "password": "s3cret", "environment": "PROD",
                               "unified_receipt": {"status": 0, "latest_receipt_info": [receipt_info],
                                                   "pending_renewal_info": [{"auto_renew_status": "1"}]}}))
write("redaction", '{"Password" : 12, "x": ["password", {"pass\\u0077ord": {"a": [1]}}], "y": "\\"password\\":"}')

transaction = {"transactionId": "t1", "originalTransactionId": "o1", "productId": "pro.monthly",
               "type": "Auto-Renewable Subscription", "purchaseDate": 1700000000000, "expiresDate": 1702592000000,
               "isUpgraded": False, "ownership": "PURCHASED", "environment": "Sandbox", "assertedAt": 1700000000000}
renewal = {"originalTransactionId": "o1", "autoRenewStatus": True, "autoRenewProductId": "pro.monthly",
           "isInBillingRetryPeriod": False, "environment": "Sandbox", "assertedAt": 1700000000000}
write("stored", bytes([0]) + json.dumps({"raw": "{\"a\":1}", "notificationType": "DID_RENEW",
                                         "transactions": [transaction], "renewals": [renewal]}, sort_keys=True).encode())
observed = lambda value, event: {"assertedAt": value["assertedAt"], "eventID": event, "value": value}
chain = {"originalTransactionId": "o1", "renewals": [observed(renewal, "e2")],
         "transactions": {"t1": observed(transaction, "e1")}, "transactionTokens": {"t1": "a1"}, "otherStreams": ["user-u1"]}
write("stored", bytes([1]) + json.dumps({"position": 3, "state": chain}, sort_keys=True).encode())
# As written before renewal history (one `renewal`) and before tokens were kept by transaction (a list).
legacy = dict(chain)
del legacy["renewals"]
legacy["renewal"] = observed(renewal, "e2")
del legacy["transactionTokens"]
legacy["appAccountTokens"] = ["a1"]
write("stored", bytes([1]) + json.dumps({"position": 2, "state": legacy}).encode())
write("stored", bytes([2]) + json.dumps({"position": 1, "state": {"userId": "u1", "chains": {"o1": 5, "o2": 7}, "grants": {}}}, sort_keys=True).encode())

# The fault scan: Apple's sample models, and a few texts with the faults clients make.
for path in sorted((fixtures / "models").glob("*.json")):
    write("json-syntax", path.read_bytes())
for text in ['{"user_id": "u1", "signed_transaction": "a.b.c",}', "{'user_id': 'u1'}", '{"a": [1, 2 3]}',
             '\ufeff{"a": "caf\u00e9 \\ud83d\\ude00"}', '{"a": 012, "b": -, "c": "\\x"}', "[" * 600 + "]" * 600]:
    write("json-syntax", text)
