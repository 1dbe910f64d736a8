#!/usr/bin/env python3
"""Sends mutated raw HTTP/1.1 to a running subledger (`scripts/fuzz-http` starts one).

Usage: http-fuzz.py PORT SECONDS API_KEY SEED OUT_DIR

Each case is a valid request of one of the routes (all but POST /v1/apple/receipts, whose
verifyReceipt retries take seconds), mutated at the byte level (flipped and inserted
bytes, cut or repeated parts, long runs, framing headers, pipelined requests), sent whole or in
pieces, sometimes with the write side shut. The server must stay up (checked every 200 cases) and
never answer a 5xx but 502 (Apple unreachable) and 503 (storage unavailable). Failing inputs are saved in OUT_DIR. Exits 1 on a failure.
"""
import json
import pathlib
import random
import socket
import sys
import time

HOST, PORT = "127.0.0.1", int(sys.argv[1])
SECS = float(sys.argv[2])
KEY = sys.argv[3]
random.seed(int(sys.argv[4]))
OUT = pathlib.Path(sys.argv[5])
OUT.mkdir(parents=True, exist_ok=True)
fixtures = pathlib.Path(__file__).resolve().parents[2] / "Tests" / "AppStoreTests" / "Fixtures"
jws = (fixtures / "real_signed" / "session_sandbox_TEST_notification_2025-09-05.jws").read_text().strip()

def req(method, path, headers=(), body=b""):
    lines = [f"{method} {path} HTTP/1.1", f"Host: {HOST}"] + list(headers)
    if body is not None and method in ("POST", "PUT"):
        lines.append(f"Content-Length: {len(body)}")
    return ("\r\n".join(lines) + "\r\n\r\n").encode() + (body or b"")

auth = f"Authorization: Bearer {KEY}"
bases = [
    req("GET", "/health"),
    req("GET", "/ready"),
    req("GET", "/metrics"),
    req("GET", "/v1/users/u1/entitlements?at=2026-01-01T00:00:00Z&as_of=2026-01-01T00:00:00.000Z", [auth]),
    req("GET", "/v1/users/u%2F1/events?limit=5&after=0-3", [auth]),
    req("GET", "/v1/events?after=0-0&limit=1000", [auth, "Accept: application/x-ndjson"]),
    req("GET", "/v1/events?limit=2", [auth]),
    req("GET", "/v1/subscriptions/2000000123?at=2026-01-01T00:00:00Z", [auth]),
    req("POST", "/v1/apple/notifications/v2", ["Content-Type: application/json"], json.dumps({"signedPayload": jws}).encode()),
    req("POST", "/v1/apple/notifications/v1", ["Content-Type: application/json"], json.dumps({"notification_type": "DID_RENEW", "password": "s3cret", "environment": "Sandbox", "unified_receipt": {"status": 0, "environment": "Sandbox", "latest_receipt_info": [{"transaction_id": "1", "original_transaction_id": "1", "product_id": "pro.monthly", "purchase_date_ms": "1700000000000", "expires_date_ms": "1800000000000"}], "pending_renewal_info": [{"original_transaction_id": "1", "auto_renew_status": "1"}]}}).encode()),
    req("POST", "/v1/apple/transactions", [auth, "Content-Type: application/json"], json.dumps({"user_id": "u1", "signed_transaction": jws}).encode()),
    req("POST", "/v1/users/u1/grants", [auth, "Content-Type: application/json"], json.dumps({"entitlement": "pro", "expires_at": "2027-01-01T00:00:00Z", "reason": "x"}).encode()),
    b"POST /v1/apple/notifications/v2 HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n5\r\n{\"sig\r\n0\r\n\r\n",
]
tokens = [b"\r\n", b"\n", b" ", b":", b"%", b"%zz", b"\x00", b"\xff", b"chunked", b"Content-Length: 99999999999\r\n", b"Transfer-Encoding: chunked\r\n",
          b"Expect: 100-continue\r\n", b"Connection: close\r\n", b"X-Request-ID: \"a b\"\r\n", b"Accept: application/x-ndjson\r\n", b"../", b"?", b"&", b"=", b"#",
          b"HTTP/1.0", b"HTTP/2.0", b"\t", b"\xc3\x28", b"{", b"}", b"\"", b"\\", b"-1", b"99999999999999999999", b"2026-02-30T00:00:00Z", b"%00"]

def mutate(data):
    data = bytearray(data)
    for _ in range(random.randint(1, 6)):
        op = random.random()
        if not data:
            data += random.choice(tokens); continue
        i = random.randrange(len(data))
        if op < 0.25: data[i] = random.randrange(256)
        elif op < 0.45: data[i:i] = random.choice(tokens)
        elif op < 0.6: del data[i:i + random.randint(1, 8)]
        elif op < 0.7: data = data[:i]
        elif op < 0.8: data[i:i] = data[random.randrange(len(data)):][:random.randint(1, 64)]
        elif op < 0.9: data[i:i] = bytes([random.choice(b"aZ0/%")]) * random.choice([1, 100, 5000, 70000])
        else: data += random.choice(bases)   # pipelined
    return bytes(data)

def exchange(payload, pieces):
    s = socket.create_connection((HOST, PORT), timeout=3)
    try:
        if pieces:
            cut = sorted(random.sample(range(len(payload) + 1), min(3, len(payload) + 1)))
            prev = 0
            for c in cut + [len(payload)]:
                s.sendall(payload[prev:c]); prev = c; time.sleep(0.01)
        else:
            s.sendall(payload)
        if random.random() < 0.3:
            s.shutdown(socket.SHUT_WR)
        out = b""
        s.settimeout(1.0)
        while True:
            try:
                chunk = s.recv(65536)
            except socket.timeout:
                break
            if not chunk: break
            out += chunk
            s.settimeout(0.25)
            if len(out) > 4_000_000: break
        return out
    except (ConnectionResetError, BrokenPipeError):
        return b"<reset>"
    finally:
        s.close()

def alive():
    try:
        return b"200 OK" in exchange(req("GET", "/health"), False)
    except OSError:
        return False

start = time.time(); n = 0; statuses = {}; bad = []
while time.time() - start < SECS:
    payload = mutate(random.choice(bases))
    try:
        out = exchange(payload, random.random() < 0.2)
    except OSError as e:
        out = f"<{type(e).__name__}>".encode()
    n += 1
    for line in out.split(b"\r\n"):
        if line.startswith(b"HTTP/1.1 ") or line.startswith(b"HTTP/1.0 "):
            code = line[9:12]
            statuses[code] = statuses.get(code, 0) + 1
            # 503: storage unavailable; 502: Apple unreachable (verifyReceipt points nowhere here).
            if code.startswith(b"5") and code not in (b"502", b"503"):
                bad.append(payload)
                (OUT / f"status-{code.decode()}-{len(bad)}.bin").write_bytes(payload)
    if n % 200 == 0 and not alive():
        (OUT / "server-down-last-input.bin").write_bytes(payload)
        print(f"http-fuzz: the server stopped answering after {n} cases; the last input is in {OUT}")
        sys.exit(1)
print(f"http-fuzz: {n} cases, answers by status {dict(sorted((k.decode(), v) for k, v in statuses.items()))}, "
      f"other 5xx: {len(bad)}")
sys.exit(1 if bad or not alive() else 0)
