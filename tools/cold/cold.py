#!/usr/bin/env python3
"""Times each game's first GET in a server that has not loaded it (a cold load), then a
second GET of it (warm), over one keep-alive connection; BENCHMARKS.md, "Issue 20,
twenty-first session".

    python3 tools/cold/cold.py PORT DATABASE_URL [GAMES]

Start a fresh `worp serve` on DATABASE_URL (a database a `worp-load` run filled) at
127.0.0.1:PORT first. GAMES (default 400) games are drawn at random from the log. It
prints the mean `/healthz` time, the cold and warm means (cold p50 and p95), and a
least-squares line through the cold times against each game's number of events.
"""
import http.client
import statistics
import subprocess
import sys
import time


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    port, db = int(sys.argv[1]), sys.argv[2]
    n = int(sys.argv[3]) if len(sys.argv) > 3 else 400
    out = subprocess.run(
        ["psql", "-X", "-At", db, "-c",
         f"SELECT game_id, max(seq) FROM events GROUP BY game_id ORDER BY random() LIMIT {n}"],
        capture_output=True, text=True, check=True).stdout
    games = [(line.split("|")[0], int(line.split("|")[1])) for line in out.split()]
    if len(games) < 2:
        sys.exit("fewer than two games in the log")
    conn = http.client.HTTPConnection("127.0.0.1", port)

    def get(path):
        started = time.perf_counter()
        conn.request("GET", path)
        answer = conn.getresponse()
        answer.read()
        return (time.perf_counter() - started) * 1e3, answer.status

    get("/healthz")
    health = [get("/healthz")[0] for _ in range(200)]
    print(f"healthz mean {statistics.mean(health):.3f} ms")
    cold, warm, events = [], [], []
    for game, seq in games:
        ms, status = get(f"/v1/games/{game}")
        if status != 200:
            print(f"GET /v1/games/{game}: {status}")
            continue
        cold.append(ms)
        warm.append(get(f"/v1/games/{game}")[0])
        events.append(seq)
    mx, my = statistics.mean(events), statistics.mean(cold)
    spread = sum((x - mx) ** 2 for x in events)
    slope = sum((x - mx) * (y - my) for x, y in zip(events, cold)) / spread if spread else 0.0
    q = statistics.quantiles(cold, n=20)
    print(f"{len(cold)} games, events mean {mx:.0f} (max {max(events)}); cold GET mean "
          f"{my:.3f} ms p50 {statistics.median(cold):.3f} p95 {q[18]:.3f}; warm mean "
          f"{statistics.mean(warm):.3f} ms")
    print(f"fit: cold = {my - slope * mx:.3f} ms + {slope * 1e3:.2f} µs x events")


if __name__ == "__main__":
    main()
