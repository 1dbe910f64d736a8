"""Summarises the rounds of `BENCH_ROUNDS=N scripts/bench http` read on stdin.

Each round prints pgbench's single-row INSERT and primary-key SELECT, then the server's ingest,
entitlement reads and GET /health. This prints one line per round with the server's figures as
shares of pgbench's (the issue's targets: ingest at least 20% of the INSERT rate, reads at least 50%
of the SELECT rate), then the medians and how many rounds met each target: of all rounds, and of
the rounds where the host took at most STEAL_LIMIT percent of the machine in every phase, since
steal in pgbench's phases lifts the shares and steal in the server's lowers them.
"""
import re
import statistics
import sys

INGEST_TARGET = 20.0
READS_TARGET = 50.0
STEAL_LIMIT = 5


def parse(lines):
    rounds, current, phase = [], None, None
    for line in lines:
        if line.startswith("pgbench: single-row INSERT"):
            current = {}
            rounds.append(current)
            phase = "insert"
        elif current is None:
            continue
        elif line.startswith("pgbench: primary-key SELECT"):
            phase = "select"
        elif line.startswith("wrk: V2 notifications"):
            phase = "ingest"
        elif line.startswith("wrk: entitlement reads"):
            phase = "reads"
        elif line.startswith("wrk: GET /health"):
            phase = "health"
        elif m := re.match(r"tps = ([\d.]+)", line):
            current[phase] = float(m.group(1))
        elif m := re.match(r"ingest: \d+ notifications recorded in \d+s = (\d+)/s", line):
            current["ingest"] = float(m.group(1))
        elif m := re.match(r"Requests/sec:\s+([\d.]+)", line.strip()):
            if phase in ("reads", "health"):
                current[phase] = float(m.group(1))
        elif m := re.match(r"99%\s+([\d.]+)(ms|us|s)", line.strip()):
            if phase == "reads":
                current["p99"] = to_ms(m)
        elif m := re.match(r"50%\s+([\d.]+)(ms|us|s)", line.strip()):
            if phase == "reads":
                current["p50"] = to_ms(m)
        elif m := re.search(r"stolen by the host:? (\d+)%", line):
            # Steal while pgbench runs lifts the server's shares, steal while the server runs
            # lowers them, so each side keeps its own worst phase.
            side = "pg_steal" if phase in ("insert", "select") else "server_steal"
            current[side] = max(current.get(side, 0), int(m.group(1)))
    return [r for r in rounds if all(k in r for k in ("insert", "select", "ingest", "reads"))]


def to_ms(match):
    value, unit = float(match.group(1)), match.group(2)
    return value / 1000 if unit == "us" else value * 1000 if unit == "s" else value


def main():
    rounds = parse(sys.stdin.read().splitlines())
    if not rounds:
        print("no complete round to summarise")
        return
    print()
    print(f"summary of {len(rounds)} rounds (targets: ingest >= {INGEST_TARGET:.0f}% of INSERT, reads >= {READS_TARGET:.0f}% of SELECT)")
    header = (f"{'round':>5} {'INSERT tps':>10} {'ingest/s':>8} {'share':>6}  {'SELECT tps':>10} {'reads/s':>8} {'share':>6} "
              f"{'p50 ms':>7} {'p99 ms':>7} {'/health':>8} {'steal pgbench/server':>21}")
    print(header)
    for number, r in enumerate(rounds, 1):
        r["ingest_share"] = 100 * r["ingest"] / r["insert"]
        r["reads_share"] = 100 * r["reads"] / r["select"]
        steal = f"{r.get('pg_steal', 0)}% / {r.get('server_steal', 0)}%"
        print(f"{number:>5} {r['insert']:>10.0f} {r['ingest']:>8.0f} {r['ingest_share']:>5.1f}%  {r['select']:>10.0f} {r['reads']:>8.0f} "
              f"{r['reads_share']:>5.1f}% {r.get('p50', float('nan')):>7.2f} {r.get('p99', float('nan')):>7.2f} "
              f"{r.get('health', float('nan')):>8.0f} {steal:>21}")
    summarise("all rounds", rounds)
    calm = [r for r in rounds if max(r.get("pg_steal", 0), r.get("server_steal", 0)) <= STEAL_LIMIT]
    if len(calm) < len(rounds):
        if calm:
            summarise(f"rounds with at most {STEAL_LIMIT}% stolen in every phase", calm)
        else:
            print(f"no round had at most {STEAL_LIMIT}% stolen in every phase")


def summarise(which, rounds):
    """Prints the medians of `rounds` and how many met each target."""
    med = lambda key: statistics.median(r[key] for r in rounds if key in r)
    print(f"median of {which} ({len(rounds)}): INSERT {med('insert'):.0f} tps, ingest {med('ingest'):.0f}/s ({med('ingest_share'):.1f}%); "
          f"SELECT {med('select'):.0f} tps, reads {med('reads'):.0f}/s ({med('reads_share'):.1f}%, p50 {med('p50'):.2f} ms, p99 {med('p99'):.2f} ms)")
    met_ingest = sum(r["ingest_share"] >= INGEST_TARGET for r in rounds)
    met_reads = sum(r["reads_share"] >= READS_TARGET for r in rounds)
    print(f"  meeting the target: ingest {met_ingest} of {len(rounds)}, reads {met_reads} of {len(rounds)}")


if __name__ == "__main__":
    main()
