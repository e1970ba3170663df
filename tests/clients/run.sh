#!/usr/bin/env bash
# Generated clients play every game: the contract as a front-end developer meets it.
#
# From the committed document openapi/openapi.json, at test time (nothing generated is
# committed), it generates
#   - a TypeScript client with openapi-typescript + openapi-fetch, and compiles it with the
#     game code (typescript/play.ts) under `tsc --strict`;
#   - a Python client with openapi-python-client, and checks the game code
#     (python/play.py, python/reading.py) with `mypy --strict` (play.py also with
#     disallow_any_expr: no expression of it is `Any`);
# then serves worp on a temporary SQLite file and a free port, and each client plays one
# game of every variant `GET /v1/variants` lists, to its end, against one bot per other
# seat, with a personal access token of only the scopes it needs. Then an independent
# OAuth client (python/oauth_flow.py, authlib) runs the whole PKCE flow, the consent
# clicked in Debian's chromium, and plays a game with the token it got. A change of the document that breaks either client (its generation, its types or
# its play) fails this script. Versions are pinned: typescript/package-lock.json and
# python/requirements.txt.
#
#   bash tests/clients/run.sh
#
# WORP_BIN: a built worp to serve (otherwise built with cargo, dev profile).
# CLIENTS_VENV: the Python virtual environment (default: <target>/clients-venv).
set -euo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
SPEC="$ROOT/openapi/openapi.json"
# Where cargo puts its builds (CARGO_TARGET_DIR, when set, is relative to the workspace).
TARGET="$(cd "$ROOT" && mkdir -p "${CARGO_TARGET_DIR:-target}" && cd "${CARGO_TARGET_DIR:-target}" && pwd)"

if [ -z "${WORP_BIN:-}" ]; then
    (cd "$ROOT" && cargo build -q -p worp --bin worp)
    WORP_BIN="$TARGET/debug/worp"
fi

# The game code may not step around the generated types.
forbidden() {
    local file=$1 pattern=$2
    if grep -nE "$pattern" "$file"; then
        echo "$file: the game code must use the generated types, not escape them (above)" >&2
        exit 1
    fi
}

echo "-- TypeScript: openapi-typescript + openapi-fetch, tsc --strict"
TS="$HERE/typescript"
# npm ci again whenever the lock file changed since the last install.
if ! cmp -s "$TS/package-lock.json" "$TS/node_modules/.worp-installed-lock" 2>/dev/null; then
    (cd "$TS" && npm ci --no-audit --no-fund --ignore-scripts --loglevel=error)
    cp "$TS/package-lock.json" "$TS/node_modules/.worp-installed-lock"
fi
rm -rf "$TS/generated" "$TS/build"
(cd "$TS" && node_modules/.bin/openapi-typescript "$SPEC" --output generated/worp.ts)
forbidden "$TS/play.ts" '\b(as|:)[[:space:]]*(any|unknown)\b|<(any|unknown)>|@ts-(ignore|expect-error|nocheck)|eslint-disable'
(cd "$TS" && node_modules/.bin/tsc -p tsconfig.json)

echo "-- Python: openapi-python-client, mypy --strict"
PY="$HERE/python"
VENV="${CLIENTS_VENV:-$TARGET/clients-venv}"
if ! cmp -s "$PY/requirements.txt" "$VENV/.worp-installed-requirements" 2>/dev/null; then
    python3 -m venv "$VENV"
    "$VENV/bin/pip" install -q --disable-pip-version-check -r "$PY/requirements.txt"
    cp "$PY/requirements.txt" "$VENV/.worp-installed-requirements"
fi
rm -rf "$PY/generated"
mkdir -p "$PY/generated"
# The generator formats its output with ruff, from the same environment. Any warning
# means a part of the document it could not turn into code: a failure here.
GENERATE_LOG="$PY/generated/generate.log"
if ! (cd "$PY/generated" && PATH="$VENV/bin:$PATH" "$VENV/bin/openapi-python-client" generate \
    --path "$SPEC" --meta none --output-path worp_client >"$GENERATE_LOG" 2>&1); then
    cat "$GENERATE_LOG" >&2
    exit 1
fi
if grep -qi 'warning' "$GENERATE_LOG"; then
    cat "$GENERATE_LOG" >&2
    echo "openapi-python-client left parts of the document out (above)" >&2
    exit 1
fi
for file in "$PY/play.py" "$PY/reading.py"; do
    forbidden "$file" '\bAny\b|\bcast\(|type: *ignore'
done
(cd "$PY" && MYPYPATH=generated "$VENV/bin/mypy" --config-file mypy.ini play.py reading.py)

echo "-- both clients play every variant against worp"
WORK="$(mktemp -d)"
PORT="$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
# Every client of the run comes from 127.0.0.1: no per-address registration, connection or
# stream limit, and no limit on the games left waiting. The OAuth metadata names its
# endpoints on WORP_PUBLIC_URL, which the OAuth client follows: this server by the name
# localhost (127.0.0.1), not by its IP address, which the passkeys' relying party cannot
# be (the server would not start).
WORP_PLAYERS_PER_HOUR_PER_ADDRESS=0 WORP_OPEN_GAMES_PER_PLAYER=0 \
WORP_CONNECTIONS_PER_ADDRESS=0 WORP_STREAMS_PER_ADDRESS=0 \
WORP_PUBLIC_URL="http://localhost:$PORT" \
WORP_SQLITE_PATH="$WORK/clients.sqlite" DATABASE_URL= WORP_BIND=127.0.0.1 PORT="$PORT" RUST_LOG=warn \
    timeout 600 "$WORP_BIN" serve >"$WORK/server.log" 2>&1 &
SERVER=$!
TS_PLAY=
PY_PLAY=
cleanup() {
    local pid
    for pid in $TS_PLAY $PY_PLAY $SERVER; do
        kill "$pid" 2>/dev/null || true
        wait "$pid" 2>/dev/null || true
    done
    rm -rf "$WORK"
}
trap cleanup EXIT

BASE="http://127.0.0.1:$PORT"
for _ in $(seq 1 100); do
    curl -fsS "$BASE/healthz" >/dev/null 2>&1 && break
    sleep 0.1
done
curl -fsS "$BASE/healthz" >/dev/null

# Both clients at once, each bounded, each with its own output.
timeout 240 node "$TS/build/play.js" "$BASE" >"$WORK/typescript.log" 2>&1 &
TS_PLAY=$!
(cd "$PY" && PYTHONPATH=generated timeout 240 "$VENV/bin/python" play.py "$BASE") \
    >"$WORK/python.log" 2>&1 &
PY_PLAY=$!
status=0
ts_status=0
wait "$TS_PLAY" || ts_status=$?
py_status=0
wait "$PY_PLAY" || py_status=$?
echo "TypeScript client (exit $ts_status):"
cat "$WORK/typescript.log"
echo "Python client (exit $py_status):"
cat "$WORK/python.log"
[ "$ts_status" -eq 0 ] || status=$ts_status
[ "$py_status" -eq 0 ] || status=$py_status
if [ "$status" -ne 0 ]; then
    echo "a generated client failed (exit $status); server log:" >&2
    tail -n 50 "$WORK/server.log" >&2
    exit "$status"
fi

echo "-- an independent OAuth client (authlib), the consent clicked in Chromium"
if [ ! -x /usr/bin/chromium ]; then
    echo "installing Debian's chromium" >&2
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
fi
if ! (cd "$PY" && timeout 300 "$VENV/bin/python" oauth_flow.py "$BASE"); then
    echo "the OAuth client failed; server log:" >&2
    tail -n 50 "$WORK/server.log" >&2
    exit 1
fi
