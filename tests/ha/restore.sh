#!/usr/bin/env bash
# Restore drill: the cluster of deploy/ha/cluster.sh (running, with games in it and a
# pgBackRest full backup taken before them) is restored to a new PostgreSQL at a point
# in time; `worp serve` runs on the copy, and every game in it is exported and checked
# by `worp audit`. Run by tests/ha/run.sh after the failover test (so the WAL it
# replays crosses every failover's timeline switch); on its own:
#
#   WORP_HA_DIR=… bash tests/ha/restore.sh
#
# The point in time is taken after the games so far and before one more game, made
# afterwards: the copy must hold every event up to it (game by game, the same last
# sequence number) and nothing after.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$ROOT"
CLUSTER=deploy/ha/cluster.sh
eval "$($CLUSTER env)"
say() { echo "restore drill: $*"; }

# As the owner of the PostgreSQL data, in the state dir: `postgres` may not be allowed
# into the checkout (a root checkout under /root).
as_owner() {
    if [ "$(id -u)" = 0 ]; then
        (cd "$WORP_HA_DIR" && setpriv --reuid=postgres --regid=postgres --init-groups -- "$@")
    else
        (cd "$WORP_HA_DIR" && "$@")
    fi
}
primary_sql() { "$PG_BIN/psql" -X -At -v ON_ERROR_STOP=1 "$OWNER_URL" -c "$1"; }
pgbackrest_all() { as_owner pgbackrest --config="$WORP_HA_DIR/pgbackrest.conf" --stanza=worp "$@"; }
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

RESTORE="$WORP_HA_DIR/restore"
WORP_PID=
cleanup() {
    if [ -n "$WORP_PID" ]; then kill -TERM "$WORP_PID" 2>/dev/null || true; fi
    if [ -f "$RESTORE/data/postmaster.pid" ]; then
        as_owner "$PG_BIN/pg_ctl" -D "$RESTORE/data" -m immediate -w -t 30 stop >/dev/null 2>&1 || true
    fi
}
trap cleanup EXIT

# 1. What the log holds now, and the point in time just after it.
before=$(primary_sql "SELECT game_id || ' ' || max(seq) FROM events GROUP BY game_id ORDER BY 1")
games=$(echo "$before" | grep -c . || true)
[ "$games" -gt 0 ] || {
    say "no games in the cluster to restore"
    exit 1
}
sleep 1.1
target=$(primary_sql "SELECT to_char(clock_timestamp() AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS.US') || '+00'")
sleep 1.1

# 2. One more game after it, which the copy must not hold.
W=${WORP_URLS%% *}
field() { python3 -c 'import json, sys; print(json.load(sys.stdin)[sys.argv[1]])' "$1"; }
player() { curl -fsS -XPOST "$W/v1/players" -H 'content-type: application/json' -d "{\"name\":\"$1\"}"; }
A=$(player late-a)
B=$(player late-b)
late=$(curl -fsS -XPOST "$W/v1/games" -H "authorization: Bearer $(echo "$A" | field token)" \
    -H 'content-type: application/json' \
    -d "{\"variant\":\"backgammon\",\"seats\":[\"$(echo "$A" | field id)\",\"$(echo "$B" | field id)\"]}" | field id)
say "$games games up to $target; game $late made after it"

# 3. Every WAL segment up to now archived (check switches WAL and waits for it).
pgbackrest_all check >/dev/null

# 4. Restore into a new data directory, to that time, promoted at once; no archiving
#    from the copy (it would write into the cluster's stanza).
started=$SECONDS
mkdir -p "$RESTORE"
chown postgres:postgres "$RESTORE" 2>/dev/null || true
pgbackrest_all --pg1-path="$RESTORE/data" --type=time --target="$target" \
    --target-action=promote --archive-mode=off restore
say "restored in $((SECONDS - started)) s"

# 5. Start it as a plain PostgreSQL: the configuration Patroni left in the data
#    directory is overridden where it names the cluster (port, socket, standbys).
port=$(free_port)
as_owner "$PG_BIN/pg_ctl" -D "$RESTORE/data" -l "$RESTORE/postgres.log" -w -t 300 \
    -o "-c listen_addresses=127.0.0.1 -p $port -k $RESTORE -c synchronous_standby_names= -c archive_mode=off -c hot_standby=on" \
    start >/dev/null
copy_sql() { "$PG_BIN/psql" -X -At -v ON_ERROR_STOP=1 "postgres://postgres@127.0.0.1:$port/worp" -c "$1"; }
deadline=$((SECONDS + 120))
until [ "$(copy_sql 'SELECT pg_is_in_recovery()' 2>/dev/null)" = f ]; do
    if [ $SECONDS -ge $deadline ]; then
        tail -n 20 "$RESTORE/postgres.log"
        say "the copy did not finish recovery"
        exit 1
    fi
    sleep 0.5
done
say "recovered and promoted $((SECONDS - started)) s after the restore began"

# 6. The copy holds exactly the log up to the target.
after=$(copy_sql "SELECT game_id || ' ' || max(seq) FROM events GROUP BY game_id ORDER BY 1")
if [ "$before" != "$after" ]; then
    diff <(echo "$before") <(echo "$after") | head -n 20
    say "FAIL: the copy's log is not the log at $target"
    exit 1
fi
say "the copy's log is the log at the target: $games games, the same last event of each"

# 7. worp serve on the copy, and every game exported and audited.
wport=$(free_port)
DATABASE_URL="postgres://worp@127.0.0.1:$port/worp" WORP_BIND=127.0.0.1 PORT=$wport RUST_LOG=warn \
    "$WORP_BIN" serve >"$RESTORE/worp.log" 2>&1 &
WORP_PID=$!
deadline=$((SECONDS + 60))
until curl -fsS -m 2 -o /dev/null "http://127.0.0.1:$wport/readyz" 2>/dev/null; do
    [ $SECONDS -lt $deadline ] || {
        tail -n 20 "$RESTORE/worp.log"
        exit 1
    }
    sleep 0.2
done
audited=0
finished=0
while read -r game _; do
    curl -fsS "http://127.0.0.1:$wport/v1/games/$game/export" >"$RESTORE/game.json"
    if ! out=$("$WORP_BIN" audit "$RESTORE/game.json" 2>&1); then
        echo "$out"
        say "FAIL: game $game does not audit"
        exit 1
    fi
    if grep -q "from the revealed seed: all match" <<<"$out"; then finished=$((finished + 1)); fi
    audited=$((audited + 1))
done <<<"$after"
say "worp serve on the copy: $audited games exported and audited ($finished finished, every roll checked against the revealed seed)"
