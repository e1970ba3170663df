#!/usr/bin/env python3
"""Where a lone client's move spends its time, from the loopback packets of a load.

Reads `tcpdump -i lo -n -tt -q` lines of the data segments of one client's HTTP
connection and the server's PostgreSQL connections (see split.sh), and walks the
cycles request -> statement -> database's answer -> HTTP answer -> next request on
the busiest PostgreSQL connection (the group commit's writer). The timestamps are
taken as each segment is sent on loopback, so each part includes the wake-up of
the side that acts next:

  server before  request sent -> statement sent (the server woken, the move judged)
  database       statement sent -> the database's answer sent (execution, commit)
  server after   the database's answer sent -> the HTTP answer sent
  client         the HTTP answer sent -> the next request sent

With HTTP_PORT `-` (pgbench's packets, no HTTP), the cycles are statement -> the
database's answer -> next statement on the busiest connection: the database's part of
an anchor transaction, and pgbench's turn between two.

Usage: split.py PACKETS HTTP_PORT|- [PG_PORT]
"""

import statistics
import sys
from collections import Counter


def port_of(text):
    return text.rstrip(":").rsplit(".", 1)[1]


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    path, http_port = sys.argv[1], sys.argv[2]
    anchor = http_port == "-"
    pg_port = sys.argv[3] if len(sys.argv) > 3 else "5432"
    segments = []
    for line in open(path, encoding="utf-8"):
        parts = line.split()
        if len(parts) < 5 or parts[1] != "IP":
            continue
        try:
            at = float(parts[0])
        except ValueError:
            continue
        src, dst = port_of(parts[2]), port_of(parts[4])
        if dst == http_port:
            segments.append((at, "request", src))
        elif src == http_port:
            segments.append((at, "answer", dst))
        elif dst == pg_port:
            segments.append((at, "statement", src))
        elif src == pg_port:
            segments.append((at, "database answer", dst))
    writer = Counter(c for _, kind, c in segments if kind == "statement").most_common(1)
    if not writer:
        sys.exit("no statement to the database in the packets")
    writer = writer[0][0]
    walk = [
        (at, kind)
        for at, kind, c in segments
        if kind in ("request", "answer") or c == writer
    ]
    if anchor:
        shape = ["statement", "database answer", "statement"]
        names = ["database", "pgbench"]
    else:
        shape = ["request", "statement", "database answer", "answer", "request"]
        names = ["server before", "database", "server after", "client"]
    step = len(shape) - 1
    parts = {n: [] for n in names}
    i = 0
    while i + step < len(walk):
        if [k for _, k in walk[i : i + step + 1]] == shape:
            times = [at for at, _ in walk[i : i + step + 1]]
            for n, (a, b) in zip(names, zip(times, times[1:])):
                parts[n].append((b - a) * 1e6)
            i += step
        else:
            i += 1
    if not parts["database"]:
        sys.exit("no whole cycle in the packets")
    total = 0.0
    for n in names:
        median = statistics.median(parts[n])
        total += median
        print(
            f"{n:15s} median {median:6.1f} µs, mean {statistics.mean(parts[n]):6.1f} µs"
        )
    what, cycles = ("a transaction", "transactions") if anchor else ("a move", "moves")
    count = len(parts["database"])
    print(f"{what:15s} {total:6.1f} µs (the sum of the medians; {count} {cycles})")


if __name__ == "__main__":
    main()
