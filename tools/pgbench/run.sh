#!/bin/bash
# What a move's rows cost PostgreSQL, statement by statement, beside pgbench's own
# durable insert (BENCHMARKS.md, "Issue 20, twentieth session").
#
#   tools/pgbench/run.sh DATABASE_URL [CLIENTS] [PASSES] [SECONDS]
#
# DATABASE_URL: a scratch database a `worp-load` run has filled (its first game's summary
# and its events' payloads are what the statements write). Every statement here runs in
# turn, CLIENTS clients (default 1), PASSES times (default 2), SECONDS each (default 5);
# each line gives the transactions a second. SCRIPTS picks some: the names of this
# folder's `.sql` files, and move_jsonb, move_json and move_text, the lone move's statement
# (`move.sql.in`) with the summary and the payloads of that type; events_only and one_event
# are that statement less its `games` row, and one event alone. The scratch tables are
# dropped at the end.
set -euo pipefail
DB=${1:?usage: run.sh DATABASE_URL [CLIENTS] [PASSES] [SECONDS]}
CLIENTS=${2:-1}
PASSES=${3:-2}
SECONDS_EACH=${4:-5}
HERE=$(cd "$(dirname "$0")" && pwd)
WORK=$(mktemp -d)
trap 'psql -X -q -d "$DB" -f "$HERE/teardown.sql"; rm -rf "$WORK"' EXIT
PGOPTIONS="-c client_min_messages=warning" psql -X -q -v ON_ERROR_STOP=1 -d "$DB" -f "$HERE/setup.sql"
SUMMARY=$(psql -X -At -d "$DB" -c "SELECT summary::text FROM games LIMIT 1")
MOVE=$(psql -X -At -d "$DB" -c "SELECT payload::text FROM events WHERE kind = 'move_played' LIMIT 1")
ROLL=$(psql -X -At -d "$DB" -c "SELECT payload::text FROM events WHERE kind = 'dice_rolled' LIMIT 1")
HASH=$(psql -X -At -d "$DB" -c "SELECT hash FROM events LIMIT 1")
THREADS=$(( CLIENTS > 1 ? 2 : 1 ))
SCRIPTS=${SCRIPTS:-anchor move_jsonb move_json move_text events_only one_event games_upsert games_update games_update_no_summary}
# The copies' pages written out before the passes rather than during one (superuser).
# Each page's first change after it still logs the whole page: the first pass pays more.
psql -X -q -d "$DB" -c CHECKPOINT 2> /dev/null || true
for type in jsonb json text; do
    sed "s/@TYPE@/$type/g" "$HERE/move.sql.in" > "$WORK/move_$type.sql"
done
cp "$HERE"/anchor.sql "$HERE"/games_*.sql "$HERE"/events_only.sql "$HERE"/one_event.sql "$WORK/"
for pass in $(seq 1 "$PASSES"); do
    for script in $SCRIPTS; do
        tps=$(PGOPTIONS="-c synchronous_commit=on" timeout $(( SECONDS_EACH + 60 )) pgbench -n -M prepared \
            -c "$CLIENTS" -j "$THREADS" -T "$SECONDS_EACH" \
            -D "summary=$SUMMARY" -D "p1=$MOVE" -D "p2=$ROLL" -D "h1=$HASH" -D "h2=$HASH" \
            -f "$WORK/$script.sql" "$DB" | awk '/^tps/ {print $3}')
        echo "pass $pass, $CLIENTS clients: $script $tps"
    done
done
