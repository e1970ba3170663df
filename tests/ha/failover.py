#!/usr/bin/env python3
"""Failover test: moves under load through the HTTP load balancer in front of two
`worp serve` processes on the Patroni cluster of deploy/ha/cluster.sh, while the
primary is killed again and again.

Rounds take turns with these faults of the node that is primary at the time (--faults,
default kill,stop,kill-patroni):
  - `kill`: SIGKILL of its PostgreSQL (the postmaster); Patroni, alive, hands over to
    the synchronous standby (primary_start_timeout 0) and rejoins it as a standby;
  - `stop`: its Patroni stopped (SIGTERM: a fast shutdown of its PostgreSQL, the
    leader key released), then started again as a standby;
  - `kill-patroni`: SIGKILL of its Patroni; its fence (deploy/ha/fence.sh) stops the
    PostgreSQL left running as primary and releases the leader key; Patroni started
    again rejoins it as a standby (pg_rewind);
  - `machine` (not in the default turn): SIGKILL of its fence, Patroni and PostgreSQL
    at once, as when its machine dies; the leader key expires after `ttl`.

Measured, per round and overall:
  - acknowledged moves lost: every 200 to a move is recorded client side (game, the
    version it was made at, seat, move) and afterwards looked up in the log of the
    primary then in charge; the event after that version must be that move (must be 0);
  - per round, the write outage: the longest stretch without an acknowledged move from
    the fault on (must be under --max-outage, 10 s), and per fault type its worst;
  - answers by status; 5xx other than 503 (must be 0), 503 without Retry-After (must be
    0), requests with no answer (must be 0), the slowest answer;
  - afterwards every game is resigned (so its seed is revealed), exported and checked
    by `worp audit` (chain, every roll, every move through the rules).

Stdlib only. Prints a report (markdown with --markdown FILE) and exits non-zero when a
requirement fails. Usage:
  tests/ha/failover.py [--rounds 6] [--faults kill,stop,kill-patroni] [--max-outage 10]
                       [--clients 8] [--games 48] [--steady 3]
"""

import argparse
import http.client
import json
import os
import random
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CLUSTER = os.path.join(ROOT, "deploy", "ha", "cluster.sh")


def log(msg):
    print(f"[{time.strftime('%H:%M:%S')}] {msg}", flush=True)


def cluster(*args, check=True, timeout=180):
    return subprocess.run([CLUSTER, *args], check=check, timeout=timeout,
                          stdout=subprocess.PIPE, text=True).stdout.strip()


class Http:
    """One keep-alive connection to a server, remade after any failure."""

    def __init__(self, base, timeout=30):
        u = urllib.parse.urlparse(base)
        self.host, self.port, self.timeout = u.hostname, u.port, timeout
        self.conn = None

    def request(self, method, path, body=None, headers=None):
        """(status, headers dict, parsed body or None); raises OSError on no answer."""
        hdrs = {"content-type": "application/json"} if body is not None else {}
        hdrs.update(headers or {})
        data = json.dumps(body).encode() if body is not None else None
        for attempt in (0, 1):
            if self.conn is None:
                self.conn = http.client.HTTPConnection(self.host, self.port, timeout=self.timeout)
            try:
                self.conn.request(method, path, body=data, headers=hdrs)
                r = self.conn.getresponse()
                raw = r.read()
                if r.getheader("connection", "").lower() == "close":
                    self.conn.close()
                    self.conn = None
            except (http.client.RemoteDisconnected, BrokenPipeError, ConnectionResetError) as e:
                # A kept-alive connection the server had closed: once more on a new one
                # (only for a request that cannot have been read: see `sent`).
                self.conn.close()
                self.conn = None
                if attempt == 0 and isinstance(e, (http.client.RemoteDisconnected, BrokenPipeError)):
                    continue
                raise
            except OSError:
                self.conn.close()
                self.conn = None
                raise
            try:
                parsed = json.loads(raw) if raw else None
            except ValueError:
                parsed = None
            return r.status, {k.lower(): v for k, v in r.getheaders()}, parsed
        raise OSError("unreachable")


class Stats:
    def __init__(self):
        self.lock = threading.Lock()
        self.status = {}
        self.acks = []          # (game, version_before, version_after, seat, move, t_sent, t_recv)
        self.no_answer = []     # (t, error)
        self.bad_5xx = []       # (t, status, body)
        self.no_retry_after = 0
        self.slowest = 0.0

    def answer(self, status, headers, body, took):
        with self.lock:
            self.status[status] = self.status.get(status, 0) + 1
            self.slowest = max(self.slowest, took)
            if status >= 500 and status != 503:
                self.bad_5xx.append((time.time(), status, body))
            if status == 503 and "retry-after" not in headers:
                self.no_retry_after += 1


def new_player(http, name):
    status, _, body = http.request("POST", "/v1/players", {"name": name})
    assert status in (200, 201), (status, body)
    return body["id"], body["token"]


def new_game(http, players):
    """A backgammon game between two players (both seats taken): (id, tokens by seat),
    or None when the server refused for now (503)."""
    (ia, ta), (ib, tb) = players
    status, _, g = http.request("POST", "/v1/games", {"variant": "backgammon", "seats": [ia, None]},
                                {"authorization": f"Bearer {ta}"})
    if status == 503:
        return None
    assert status in (200, 201), (status, g)
    status, _, g = http.request("POST", f"/v1/games/{g['id']}/seats/1", {},
                                {"authorization": f"Bearer {tb}"})
    if status == 503:
        return None  # the game waits for its second player: left out
    assert status == 200, (status, g)
    return g["id"], {0: ta, 1: tb}


def awaited_seat(game):
    a = game.get("awaiting") or {}
    return a.get("seat") if a.get("type") == "move" else None


class Client(threading.Thread):
    """Plays its tables round robin through both servers until told to stop; a table
    whose game finished gets a new game between the same players."""

    def __init__(self, n, urls, tables, stats, stop, registry):
        super().__init__(daemon=True)
        self.https = [Http(u) for u in urls]
        self.tables, self.stats, self.stop, self.registry = tables, stats, stop, registry
        self.rng = random.Random(n)
        self.views = {}

    def call(self, method, path, body=None, headers=None):
        http = self.rng.choice(self.https)
        t = time.time()
        try:
            status, hdrs, resp = http.request(method, path, body, headers)
        except OSError as e:
            with self.stats.lock:
                self.stats.no_answer.append((t, repr(e)))
            return None, None, None, t
        self.stats.answer(status, hdrs, resp, time.time() - t)
        return status, hdrs, resp, t

    def replace(self, table):
        try:
            game = new_game(self.rng.choice(self.https), table["players"])
        except OSError:
            game = None
        if game is not None:
            table["game"] = game
            with self.stats.lock:
                self.registry.append(game)

    def run(self):
        while not self.stop.is_set():
            for table in self.tables:
                if self.stop.is_set():
                    return
                gid, tokens = table["game"]
                view = self.views.get(gid)
                if view is None:
                    status, _, view, _ = self.call("GET", f"/v1/games/{gid}")
                    if status != 200:
                        time.sleep(0.05)
                        continue
                seat = awaited_seat(view)
                if view.get("status") != "active" or seat is None or not view.get("legal_moves"):
                    self.views.pop(gid, None)
                    if view.get("status") == "finished":
                        self.replace(table)
                    continue
                move = self.rng.choice(view["legal_moves"])
                before = view["version"]
                status, _, resp, t_sent = self.call(
                    "POST", f"/v1/games/{gid}/moves", {"move": move},
                    {"authorization": f"Bearer {tokens[seat]}", "if-match": f'"{before}"'})
                if status == 200:
                    with self.stats.lock:
                        self.stats.acks.append((gid, before, resp["version"], seat, move, t_sent, time.time()))
                    self.views[gid] = resp
                else:
                    # 503: not recorded, maybe committed: read the game again later.
                    self.views.pop(gid, None)
                    if status == 503 or status is None:
                        time.sleep(0.1)


def relayed(urls, table, seconds=10.0):
    """After the failovers: a move made through the first server reaches a live stream
    of the game on the second (its LISTEN, re-made on the new primary). Returns the
    seconds it took, or None."""
    gid, tokens = table["game"]
    u = urllib.parse.urlparse(urls[1])
    conn = http.client.HTTPConnection(u.hostname, u.port, timeout=seconds)
    conn.request("GET", f"/v1/games/{gid}/stream", headers={"accept": "text/event-stream"})
    stream = conn.getresponse()
    if stream.status != 200:
        return None
    time.sleep(0.5)
    mover = Http(urls[0])
    deadline = time.time() + seconds
    while time.time() < deadline:
        status, _, g = mover.request("GET", f"/v1/games/{gid}")
        seat = awaited_seat(g) if status == 200 else None
        if seat is None or not g.get("legal_moves"):
            time.sleep(0.2)
            continue
        status, _, _ = mover.request("POST", f"/v1/games/{gid}/moves", {"move": g["legal_moves"][0]},
                                     {"authorization": f"Bearer {tokens[seat]}",
                                      "if-match": f'"{g["version"]}"'})
        if status != 200:
            time.sleep(0.2)
            continue
        sent = time.time()
        try:
            while time.time() < deadline:
                line = stream.readline().decode()
                if line.startswith("event: move_played"):
                    return time.time() - sent
        except OSError:
            return None
        finally:
            conn.close()
    return None


def psql(env, sql):
    out = subprocess.run([os.path.join(env["PG_BIN"], "psql"), "-X", "-At", "-F", "\t",
                          env["OWNER_URL"], "-c", sql],
                         check=True, timeout=120, stdout=subprocess.PIPE, text=True).stdout
    return [line.split("\t") for line in out.splitlines() if line]


def check_log(env, acks):
    """Acknowledged moves missing from the log: the event after the version a move was
    made at must be that seat's move."""
    rows = psql(env, "SELECT game_id, seq, payload::text FROM events WHERE kind = 'move_played'")
    moves = {(g, int(s)): json.loads(p) for g, s, p in rows}
    lost = []
    for gid, before, after, seat, move, *_ in acks:
        e = moves.get((gid, before + 1))
        if e is None or e.get("seat") != seat or e.get("move") != move:
            lost.append((gid, before, after, seat, move, e))
    return lost


def audit_every_game(env, worp, games, urls):
    """Resigns every game still active (the seed is revealed), exports it and runs
    `worp audit` on it. Returns (games audited, failures)."""
    http = Http(urls[0])
    failures = []
    with tempfile.TemporaryDirectory() as tmp:
        for gid, tokens in games:
            status, _, g = http.request("GET", f"/v1/games/{gid}")
            if status != 200:
                failures.append((gid, f"GET {status}"))
                continue
            if g["status"] == "active":
                http.request("POST", f"/v1/games/{gid}/resign", {},
                             {"authorization": f"Bearer {tokens[0]}"})
            status, _, export = http.request("GET", f"/v1/games/{gid}/export")
            if status != 200:
                failures.append((gid, f"export {status}"))
                continue
            path = os.path.join(tmp, f"{gid}.json")
            with open(path, "w") as f:
                json.dump(export, f)
            r = subprocess.run([worp, "audit", path], stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, text=True, timeout=60)
            if r.returncode != 0 or "from the revealed seed: all match" not in r.stdout:
                failures.append((gid, r.stdout.strip()[-300:]))
    return len(games), failures


def gaps(t_fault, times):
    """The longest stretch without an acknowledgement from t_fault on (the wait until
    the first one included), and when it began (seconds after the fault)."""
    longest, start, prev = times[0] - t_fault, 0.0, t_fault
    for t in times:
        if t - prev > longest:
            longest, start = t - prev, prev - t_fault
        prev = t
    return longest, start


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=6)
    ap.add_argument("--clients", type=int, default=8)
    ap.add_argument("--games", type=int, default=48)
    ap.add_argument("--steady", type=float, default=3.0, help="seconds of load before each fault")
    ap.add_argument("--faults", default="kill,stop,kill-patroni",
                    help="the faults, in turn: kill, stop, kill-patroni, machine")
    ap.add_argument("--max-outage", type=float, default=10.0,
                    help="the longest write outage allowed after a fault, seconds")
    ap.add_argument("--markdown", help="write the figures as a markdown table here")
    args = ap.parse_args()

    env = dict(line.split("=", 1) for line in cluster("env").splitlines() if "=" in line)
    env = {k: v.strip('"') for k, v in env.items()}
    faults = args.faults.split(",")
    for kind in faults:
        if kind not in ("kill", "stop", "kill-patroni", "machine"):
            ap.error(f"unknown fault {kind}")
    urls = env["WORP_URLS"].split()
    lb = env["LB_URL"]
    worp = cluster("worp-bin")

    # Every client request goes through the load balancer; only the relay check after
    # the failovers talks to each server directly.
    log(f"setting up {args.games} games for {args.clients} clients on {lb} (in front of {urls})")
    setup = Http(lb)
    tables, games = [], []
    for i in range(args.games):
        players = [new_player(setup, f"p{i}a"), new_player(setup, f"p{i}b")]
        game = new_game(setup, players)
        assert game is not None, "the servers refused a game before any fault"
        tables.append({"players": players, "game": game})
        games.append(game)
    stats, stop = Stats(), threading.Event()
    clients = [Client(n, [lb], tables[n::args.clients], stats, stop, games) for n in range(args.clients)]
    for c in clients:
        c.start()

    rounds = []
    started = time.time()
    try:
        for r in range(args.rounds):
            kind = faults[r % len(faults)]
            cluster("wait-healthy", "120", timeout=130)
            time.sleep(args.steady)
            node = cluster("leader")
            acks_before = len(stats.acks)
            t_fault = time.time()
            if kind == "kill":
                cluster("kill-postgres", node)
            elif kind == "stop":
                cluster("stop-patroni", node, timeout=90)
            elif kind == "kill-patroni":
                cluster("kill-patroni", node)
            else:
                cluster("kill-node", node)
            t_down = time.time()
            # Until moves are acknowledged again: the longest stretch without an
            # acknowledgement from the fault on (a few commits already on their way may
            # still be acknowledged just after it, before the old primary is gone).
            window = 60.0
            while time.time() < t_fault + window:
                time.sleep(0.25)
                with stats.lock:
                    times = sorted(a[6] for a in stats.acks[acks_before:] if a[6] > t_fault)
                if times:
                    longest, start = gaps(t_fault, times)
                    if times[-1] > t_fault + start + longest + 2 and time.time() - times[-1] < 0.5:
                        break  # acknowledged again for 2 s since the longest gap
            with stats.lock:
                times = sorted(a[6] for a in stats.acks[acks_before:] if a[6] > t_fault)
            outage, gap_start = (None, None) if not times else gaps(t_fault, times)
            if kind in ("stop", "kill-patroni"):
                cluster("start-patroni", node)
            elif kind == "machine":
                cluster("start-node", node)
            cluster("wait-healthy", "120", timeout=130)
            new_leader = cluster("leader", check=False)
            rounds.append({"round": r + 1, "fault": kind, "node": node, "new_primary": new_leader,
                           "back_s": outage, "gap_from_s": gap_start,
                           "fault_took_s": t_down - t_fault, "healthy_s": time.time() - t_fault})
            log(f"round {r + 1}: {kind} {node} -> {new_leader}: no move acknowledged for "
                f"{'EVER' if outage is None else f'{outage:.2f} s'}")
    finally:
        time.sleep(args.steady)
        stop.set()
        for c in clients:
            c.join(timeout=60)
    elapsed = time.time() - started
    relay = None
    probe = Http(urls[0])
    for table in tables:
        status, _, g = probe.request("GET", f"/v1/games/{table['game'][0]}")
        if status == 200 and g["status"] == "active":
            relay = relayed(urls, table)
            break

    lost = check_log(env, stats.acks)
    audited, audit_failures = audit_every_game(env, worp, list(games), [lb])

    backs = [r["back_s"] for r in rounds if r["back_s"] is not None and r["back_s"] < 59]
    too_long = [r for r in rounds if r["back_s"] is None or r["back_s"] >= args.max_outage]
    ok = (relay is not None and not lost and not stats.bad_5xx and not stats.no_answer and stats.no_retry_after == 0
          and not audit_failures and len(backs) == len(rounds) and not too_long)
    lines = [
        "| round | fault | primary before → after | no move acknowledged for | from (after the fault) | three nodes in sync again after |",
        "|---|---|---|---|---|---|",
    ]
    for r in rounds:
        back = "never" if r["back_s"] is None else f"{r['back_s']:.2f} s"
        start = "" if r["gap_from_s"] is None else f"{r['gap_from_s']:.2f} s"
        lines.append(f"| {r['round']} | {r['fault']} | {r['node']} → {r['new_primary']} | {back} | {start} "
                     f"| {r['healthy_s']:.1f} s |")
    summary = [
        f"rounds: {len(rounds)} in {elapsed:.0f} s, {args.clients} clients, {args.games} games "
        f"at a time ({len(games)} in all)",
        f"acknowledged moves: {len(stats.acks)}; lost: {len(lost)}",
        f"answers by status: {dict(sorted(stats.status.items()))}",
        f"5xx other than 503: {len(stats.bad_5xx)}; 503 without Retry-After: {stats.no_retry_after}; "
        f"requests without an answer: {len(stats.no_answer)}; slowest answer: {stats.slowest:.2f} s",
        f"longest stretch without an acknowledged move after a fault: worst {max(backs, default=float('nan')):.2f} s, "
        f"median {sorted(backs)[len(backs) // 2] if backs else float('nan'):.2f} s",
        "write outage by fault (worst, rounds): " + "; ".join(
            f"{kind} {max(r['back_s'] if r['back_s'] is not None else float('inf') for r in rounds if r['fault'] == kind):.2f} s "
            f"({sum(1 for r in rounds if r['fault'] == kind)})"
            for kind in faults if any(r["fault"] == kind for r in rounds))
        + f"; rounds at or over {args.max_outage:g} s: {len(too_long)}",
        f"games audited after resigning: {audited}; failures: {len(audit_failures)}",
        "after the failovers, a move through one server reached a live stream on the other "
        + ("in " + f"{relay:.3f} s" if relay is not None else "NEVER (the relay did not listen again)"),
    ]
    print("\n".join(lines + [""] + summary))
    for item in lost[:10]:
        print("LOST:", item)
    for item in stats.bad_5xx[:10]:
        print("5xx:", item)
    for item in stats.no_answer[:10]:
        print("NO ANSWER:", item)
    for item in audit_failures[:10]:
        print("AUDIT:", item)
    if args.markdown:
        with open(args.markdown, "w") as f:
            f.write("\n".join(lines + [""] + [f"- {s}" for s in summary]) + "\n")
    print("PASS" if ok else "FAIL")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
