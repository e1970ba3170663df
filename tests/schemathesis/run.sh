#!/usr/bin/env bash
# Schemathesis against a running Worp server (SQLite in a temp file): no 5xx, and every
# status code, content type, header and body conforms to /openapi.json.
# Installs schemathesis into a venv under target/ if missing, builds and starts the server
# on a free port, registers a player whose token every request carries, runs a bounded
# number of examples per operation, stops the server, and exits non-zero on any failure.
#
#   bash tests/schemathesis/run.sh            # SCHEMATHESIS_EXAMPLES=25 by default
set -euo pipefail
cd "$(dirname "$0")/../.."

EXAMPLES="${SCHEMATHESIS_EXAMPLES:-25}"
VENV="${SCHEMATHESIS_VENV:-target/schemathesis-venv}"
ST="$VENV/bin/schemathesis"
if [ ! -x "$ST" ]; then
    echo "installing schemathesis into $VENV"
    python3 -m venv "$VENV"
    "$VENV/bin/pip" install -q "schemathesis>=4.32,<5"
fi

cargo build -q -p worp --bin worp
BIN="${CARGO_TARGET_DIR:-target}/debug/worp"

WORK=$(mktemp -d)
PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
# Every client of the run comes from 127.0.0.1: no per-address registration, connection or
# stream limit, and no limit on the games left waiting.
WORP_PLAYERS_PER_HOUR_PER_ADDRESS=0 WORP_OPEN_GAMES_PER_PLAYER=0 \
WORP_CONNECTIONS_PER_ADDRESS=0 WORP_STREAMS_PER_ADDRESS=0 \
WORP_SQLITE_PATH="$WORK/worp.sqlite" DATABASE_URL= WORP_BIND=127.0.0.1 PORT="$PORT" RUST_LOG=warn \
    "$BIN" serve >"$WORK/server.log" 2>&1 &
SERVER=$!
cleanup() {
    kill "$SERVER" 2>/dev/null || true
    wait "$SERVER" 2>/dev/null || true
    rm -rf "$WORK"
}
trap cleanup EXIT

BASE="http://127.0.0.1:$PORT"
for _ in $(seq 1 100); do
    curl -fsS "$BASE/healthz" >/dev/null 2>&1 && break
    sleep 0.1
done
curl -fsS "$BASE/healthz" >/dev/null

# A player, so authenticated operations get past 401 (and the game it creates gives
# the fuzzer one real game to find among the ids it makes up).
TOKEN=$(curl -fsS -XPOST "$BASE/v1/players" -H 'content-type: application/json' -d '{"name":"schemathesis"}' \
    | python3 -c 'import json,sys; print(json.load(sys.stdin)["token"])')

status=0
# Run from the temp dir: schemathesis keeps a cache (.schemathesis/) in its working directory.
ST=$(cd "$(dirname "$ST")" && pwd)/schemathesis
(cd "$WORK" && "$ST" run "$BASE/openapi.json" \
    --checks "${SCHEMATHESIS_CHECKS:-not_a_server_error,status_code_conformance,content_type_conformance,response_headers_conformance,response_schema_conformance}" \
    --max-examples "$EXAMPLES" \
    --seed "${SCHEMATHESIS_SEED:-20261122}" \
    --request-timeout 10 \
    --workers 1 \
    --warnings off \
    -H "Authorization: Bearer $TOKEN") || status=$?
if [ "$status" -ne 0 ]; then
    echo "schemathesis failed (exit $status); server log:"
    tail -n 50 "$WORK/server.log"
fi
exit "$status"
