#!/usr/bin/env python3
"""Time Apple's official Python library on the JWS set exported by `subledger-bench verify --export DIR`.

Usage:
    python3 -m venv .venv && .venv/bin/pip install app-store-server-library
    subledger-bench verify --export /tmp/verify-set
    .venv/bin/python scripts/bench-python-verifier.py /tmp/verify-set [--seconds 3]

Prints verifications per second of SignedDataVerifier.verify_and_decode_signed_transaction, on
one core (a single Python thread), offline (no OCSP), so the figure compares with scenario (a)
of the Swift benchmark. The effective date of each check is the payload's signedDate, as in Swift.
"""

import argparse
import json
import pathlib
import sys
import time

try:
    from appstoreserverlibrary.models.Environment import Environment
    from appstoreserverlibrary.signed_data_verifier import SignedDataVerifier
except ImportError:
    sys.exit("app-store-server-library is not installed: pip install app-store-server-library")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("directory", type=pathlib.Path, help="directory written by subledger-bench verify --export")
    parser.add_argument("--seconds", type=float, default=3.0, help="how long to run")
    parser.add_argument("--json", action="store_true", help="print the result as JSON")
    args = parser.parse_args()

    meta = json.loads((args.directory / "meta.json").read_text())
    root = (args.directory / "root.der").read_bytes()
    tokens = [line for line in (args.directory / "transactions.txt").read_text().splitlines() if line]
    if not tokens:
        sys.exit("no transactions in the exported set")

    verifier = SignedDataVerifier(
        root_certificates=[root],
        enable_online_checks=False,
        environment=Environment(meta["environment"]),
        bundle_id=meta["bundle_id"],
        app_apple_id=meta.get("app_apple_id"),
    )

    # Fail loudly if the library does not accept the set, rather than timing exceptions.
    first = verifier.verify_and_decode_signed_transaction(tokens[0])
    assert first.bundleId == meta["bundle_id"], first

    for token in tokens[:50]:  # warm-up
        verifier.verify_and_decode_signed_transaction(token)

    count = 0
    start = time.perf_counter()
    deadline = start + args.seconds
    while time.perf_counter() < deadline:
        for _ in range(16):
            verifier.verify_and_decode_signed_transaction(tokens[count % len(tokens)])
            count += 1
    elapsed = time.perf_counter() - start
    rate = count / elapsed

    if args.json:
        print(json.dumps({"python_transaction": round(rate), "count": count, "seconds": round(elapsed, 2)}))
    else:
        print(f"app-store-server-library (Python), one core, {len(tokens)} distinct tokens")
        print(f"  python_transaction             {rate:,.0f} verifications/s ({count:,} in {elapsed:.2f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
