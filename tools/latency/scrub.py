#!/usr/bin/env python3
"""A game scrubbed state by state (`GET /v1/games/{id}/state?at=k`, k = 1..N, three times)
over one kept-alive connection, as a browser's replay slider does: the wall time and the
server's CPU (from /proc) a state, and the answer's size.

Usage: scrub.py PORT GAME_ID STATES SERVER_PID [ACCEPT_ENCODING]
ACCEPT_ENCODING: what the client says it accepts, e.g. "gzip, deflate, br, zstd" (a
browser's); none by default.
"""

import http.client
import sys
import time


def cpu_ticks(pid):
    fields = open(f"/proc/{pid}/stat", encoding="ascii").read().rsplit(")", 1)[1].split()
    return int(fields[11]) + int(fields[12])


def main():
    if len(sys.argv) < 5:
        sys.exit(__doc__)
    port, game, states, pid = int(sys.argv[1]), sys.argv[2], int(sys.argv[3]), sys.argv[4]
    encoding = sys.argv[5] if len(sys.argv) > 5 else None
    headers = {"Accept-Encoding": encoding} if encoding else {}
    hz = 100  # USER_HZ: /proc counts CPU time in hundredths of a second on Linux
    connection = http.client.HTTPConnection("127.0.0.1", port)
    count, size = 0, 0
    ticks, started = cpu_ticks(pid), time.perf_counter()
    for _ in range(3):
        for k in range(1, states + 1):
            connection.request("GET", f"/v1/games/{game}/state?at={k}", headers=headers)
            answer = connection.getresponse()
            body = answer.read()
            if answer.status != 200:
                sys.exit(f"state?at={k}: HTTP {answer.status}")
            count += 1
            size += len(body)
    wall = time.perf_counter() - started
    cpu = (cpu_ticks(pid) - ticks) / hz
    print(
        f"Accept-Encoding {encoding or '(none)'}: {wall / count * 1e6:.1f} µs a state, "
        f"server CPU {cpu / count * 1e6:.1f} µs a state, {size / count:.0f} bytes an answer "
        f"({count} states)"
    )


if __name__ == "__main__":
    main()
