#!/usr/bin/env bash
# End-to-end tests of the web client: builds worp, serves it on a temporary SQLite file
# and a free port, and plays every game through the page in headless Chromium.
#   tests/e2e/run.sh              # all tests
#   tests/e2e/run.sh --test-name-pattern=Ludo
set -euo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
cd "$HERE"

if [ ! -x /usr/bin/chromium ]; then
  echo "installing Debian's chromium" >&2
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
fi
if [ ! -d node_modules/playwright-core ] || [ ! -d node_modules/axe-core ]; then
  # playwright-core (it never downloads a browser) and axe-core (the accessibility checks).
  npm ci --no-audit --no-fund --ignore-scripts
fi

(cd "$ROOT" && cargo build -q -p worp)
# Where cargo put it (CARGO_TARGET_DIR, when set, is relative to the workspace).
WORP="$(cd "$ROOT" && cd "${CARGO_TARGET_DIR:-target}" && pwd)/debug/worp"
# The tests that need a server of their own (with mail: notifications_mail.test.mjs) start this one.
export WORP_BIN="$WORP"

TMP="$(mktemp -d)"
PORT="$(node -e "const s=require('net').createServer().listen(0,'127.0.0.1',()=>{console.log(s.address().port);s.close()})")"
# Every client of the run comes from 127.0.0.1: no per-address registration, connection or
# stream limit, and no limit on the games left waiting.
WORP_PLAYERS_PER_HOUR_PER_ADDRESS=0 WORP_OPEN_GAMES_PER_PLAYER=0 \
WORP_CONNECTIONS_PER_ADDRESS=0 WORP_STREAMS_PER_ADDRESS=0 \
WORP_SQLITE_PATH="$TMP/e2e.sqlite" WORP_BIND=127.0.0.1 PORT="$PORT" RUST_LOG=warn \
  "$WORP" serve >"$TMP/server.log" 2>&1 &
SERVER=$!
cleanup() { kill "$SERVER" 2>/dev/null || true; wait "$SERVER" 2>/dev/null || true; rm -rf "$TMP"; }
trap cleanup EXIT

for _ in $(seq 1 100); do
  curl -sf "http://127.0.0.1:$PORT/healthz" >/dev/null 2>&1 && break
  sleep 0.1
done

WORP_URL="http://127.0.0.1:$PORT" node --test --test-concurrency=1 "$@" ./*.test.mjs
