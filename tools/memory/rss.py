#!/usr/bin/env python3
"""The server's resident memory: idle, per game kept in memory, per open live stream.

Starts `worp serve` (the binary given) on a fresh SQLite file, then reads VmRSS from
/proc: just started; after GAMES backgammon games were created between two players
(each game's table is cached); after STREAMS live streams of one game were opened and
have received their first event. Prints each figure and the deltas per game and per
stream. Every wait is bounded.

    python3 tools/memory/rss.py target/release/worp [--games 2000] [--streams 400]
"""
import argparse
import json
import os
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request


def rss_kib(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    raise RuntimeError("no VmRSS")


def call(base, method, path, body=None, token=None):
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(base + path, data=data, method=method)
    req.add_header("Content-Type", "application/json")
    if token:
        req.add_header("Authorization", f"Bearer {token}")
    with urllib.request.urlopen(req, timeout=10) as r:
        return json.loads(r.read() or b"null")


def settle(pid, seconds=2.0):
    """RSS once it has stopped moving (the allocator returns memory with a delay)."""
    time.sleep(seconds)
    return rss_kib(pid)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("worp")
    ap.add_argument("--games", type=int, default=2000)
    ap.add_argument("--streams", type=int, default=400)
    ap.add_argument("--port", type=int, default=18931)
    args = ap.parse_args()
    tmp = tempfile.mkdtemp()
    env = dict(os.environ, WORP_SQLITE_PATH=f"{tmp}/worp.sqlite", PORT=str(args.port),
               RUST_LOG="warn", WORP_RATE_PER_MINUTE="0", WORP_RATE_PER_MINUTE_PER_ADDRESS="0",
               WORP_PLAYERS_PER_HOUR_PER_ADDRESS="0", WORP_OPEN_GAMES_PER_PLAYER="0",
               WORP_MAX_CONNECTIONS=str(args.streams + 64),
               # Every stream comes from 127.0.0.1: lift the per-address limits.
               WORP_STREAMS_PER_ADDRESS=str(args.streams),
               WORP_CONNECTIONS_PER_ADDRESS=str(args.streams + 64))
    server = subprocess.Popen([args.worp, "serve"], env=env)
    base = f"http://127.0.0.1:{args.port}"
    socks = []
    try:
        for _ in range(100):
            try:
                call(base, "GET", "/healthz")
                break
            except OSError:
                time.sleep(0.1)
        idle = settle(server.pid)
        print(f"RSS just started: {idle / 1024:.1f} MiB")
        a = call(base, "POST", "/v1/players", {"name": "rss-a"})
        b = call(base, "POST", "/v1/players", {"name": "rss-b"})
        warm = settle(server.pid)
        game = None
        for _ in range(args.games):
            game = call(base, "POST", "/v1/games", {"variant": "backgammon",
                        "seats": [a["id"], b["id"]]}, a["token"])
            game = call(base, "POST", f"/v1/games/{game['id']}/seats/1", None, b["token"])
        games = settle(server.pid)
        print(f"RSS after {args.games} games: {games / 1024:.1f} MiB "
              f"({(games - warm) / args.games:.1f} KiB per game)")
        request = (f"GET /v1/games/{game['id']}/stream HTTP/1.1\r\nHost: x\r\n"
                   "Accept: text/event-stream\r\n\r\n").encode()
        for _ in range(args.streams):
            s = socket.create_connection(("127.0.0.1", args.port), timeout=10)
            s.sendall(request)
            socks.append(s)
        for s in socks:
            if b"200" not in s.recv(4096).split(b"\r\n", 1)[0]:
                raise RuntimeError("a stream was refused")
        streams = settle(server.pid)
        print(f"RSS with {args.streams} open streams: {streams / 1024:.1f} MiB "
              f"({(streams - games) / args.streams:.1f} KiB per stream)")
    finally:
        for s in socks:
            s.close()
        server.terminate()
        try:
            server.wait(timeout=30)
        except subprocess.TimeoutExpired:
            server.kill()
    return 0


if __name__ == "__main__":
    sys.exit(main())
