#!/usr/bin/env bash
# The latency split of a lone client's moves on PostgreSQL over TCP: a server on a
# fresh database, one worp-load client, and 3 s of loopback packets read by split.py;
# then the same for pgbench's durable single-row insert (worp-load's anchor,
# tools/pgbench/anchor.sql) at one client. Needs tcpdump (and the right to capture on
# lo), psql, pgbench and a release build.
# Usage: tools/latency/split.sh [POSTGRES_BASE_URL]   (default postgres://postgres@127.0.0.1:5432)
set -euo pipefail
cd "$(dirname "$0")/../.."
BASE=${1:-postgres://postgres@127.0.0.1:5432}
PGPORT=$(printf '%s' "$BASE" | sed -nE 's#.*:([0-9]+)/?$#\1#p')
PGPORT=${PGPORT:-5432}
DB=worp_split_$(head -c4 /dev/urandom | od -An -tx1 | tr -d ' \n')
PORT=$((18400 + RANDOM % 500))
PACKETS=$(mktemp)
psql "$BASE/postgres" -qc "CREATE DATABASE $DB"
cleanup() {
    [ -n "${SERVER:-}" ] && kill "$SERVER" 2>/dev/null && wait "$SERVER" 2>/dev/null
    psql "$BASE/postgres" -qc "DROP DATABASE IF EXISTS $DB WITH (FORCE)"
    rm -f "$PACKETS"
}
trap cleanup EXIT
capture() { # PORTS...: 3 s of data segments (the IP length less both headers is not zero)
    local filter="tcp port $1"
    shift
    for p in "$@"; do filter="$filter or tcp port $p"; done
    timeout 3 tcpdump -i lo -n -tt -q -c 40000 \
        "($filter) and (((ip[2:2] - ((ip[0]&0xf)<<2)) - ((tcp[12]&0xf0)>>2)) != 0)" \
        >"$PACKETS" 2>/dev/null || true
}
DATABASE_URL=$BASE/$DB PORT=$PORT RUST_LOG=warn WORP_RATE_PER_MINUTE=0 \
    WORP_RATE_PER_MINUTE_PER_ADDRESS=0 WORP_PLAYERS_PER_HOUR_PER_ADDRESS=0 \
    WORP_OPEN_GAMES_PER_PLAYER=0 target/release/worp serve >/dev/null 2>&1 &
SERVER=$!
for _ in $(seq 100); do curl -sf "http://127.0.0.1:$PORT/healthz" >/dev/null && break; sleep 0.1; done
echo "worp, one client:"
timeout 60 target/release/worp-load --url "http://127.0.0.1:$PORT" --clients 1 --duration 8s \
    | grep -E "acknowledged moves:|latency of acknowledged" &
LOAD=$!
sleep 3
capture "$PGPORT" "$PORT"
wait "$LOAD"
python3 tools/latency/split.py "$PACKETS" "$PORT" "$PGPORT"
echo "pgbench's durable single-row insert, one client:"
PGOPTIONS="-c client_min_messages=warning" psql "$BASE/$DB" -q -f tools/pgbench/anchor_table.sql
PGOPTIONS="-c synchronous_commit=on" timeout 60 pgbench -n -M prepared -c 1 -j 1 -T 8 \
    -f tools/pgbench/anchor.sql "$BASE/$DB" 2>/dev/null | grep -E "latency average|tps" &
BENCH=$!
sleep 3
capture "$PGPORT"
wait "$BENCH"
python3 tools/latency/split.py "$PACKETS" - "$PGPORT"
