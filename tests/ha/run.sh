#!/usr/bin/env bash
# The high-availability tests, on the loopback cluster of deploy/ha/cluster.sh (three
# PostgreSQL nodes under Patroni, etcd, HAProxy, pgBackRest, two `worp serve`):
#
#   1. tests/ha/failover.py: moves under load, through the HTTP load balancer, while
#      the primary is hit ROUNDS times (default 6), the faults in turn: SIGKILL of its
#      PostgreSQL, its Patroni stopped, SIGKILL of its Patroni (the fence stops the old
#      primary) (WORP_HA_FAULTS: a comma-separated list of kill, stop, kill-patroni,
#      machine): no acknowledged move lost, no 5xx but 503, writes back within 10 s
#      after every fault, every game audits afterwards.
#   2. tests/ha/restore.sh: a pgBackRest backup of the cluster restored to a new
#      PostgreSQL at a point in time; `worp serve` on it; every game there audits.
#
#   bash tests/ha/run.sh            (tests/run.sh runs it as its "ha failover" stage)
#
# Needs patroni, etcd, etcdctl, haproxy and pgbackrest (Debian: patroni etcd-server
# etcd-client haproxy pgbackrest python3-etcd) and a built worp (WORP_BIN, else
# target/debug/worp); without the packages it says so and exits 0. Everything lives in a
# temporary directory, deleted at the end; the processes are stopped also on failure or
# Ctrl-C. The checkout may be one the `postgres` user cannot enter: every process of the
# cluster runs in the temporary directory.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$ROOT"

missing=()
for tool in patroni etcd etcdctl haproxy pgbackrest; do
    command -v "$tool" >/dev/null || missing+=("$tool")
done
# Patroni's etcd client (Debian's patroni only recommends it).
if command -v patroni >/dev/null && ! "$(head -n 1 "$(command -v patroni)" | sed 's/^#!//')" -c 'import etcd' 2>/dev/null; then
    missing+=(python3-etcd)
fi
if [ ${#missing[@]} -gt 0 ]; then
    echo "SKIPPED: the HA tests need ${missing[*]} (apt-get install patroni etcd-server etcd-client haproxy pgbackrest python3-etcd)"
    exit 0
fi

export WORP_HA_DIR
WORP_HA_DIR=$(mktemp -d "${TMPDIR:-/tmp}/worp-ha.XXXXXX")
cleanup() {
    local status=$?
    trap - EXIT INT TERM
    if [ "$status" -ne 0 ]; then
        echo "== HA test failed: the last lines of each log in $WORP_HA_DIR/logs" >&2
        for f in "$WORP_HA_DIR"/logs/*.log; do
            echo "-- $f" >&2
            tail -n 15 "$f" >&2 || true
        done
    fi
    timeout 180 deploy/ha/cluster.sh clean || true
    exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# The test's clients all come from 127.0.0.1: no per-address or per-token limits.
export WORP_RATE_PER_MINUTE=0 WORP_RATE_PER_MINUTE_PER_ADDRESS=0
export WORP_PLAYERS_PER_HOUR_PER_ADDRESS=0 WORP_OPEN_GAMES_PER_PLAYER=0
export WORP_CONNECTIONS_PER_ADDRESS=0 WORP_STREAMS_PER_ADDRESS=0
# Nor at the load balancer (its default; said here since the clients share an address).
export WORP_HA_LB_CONNS_PER_ADDRESS=0
export RUST_LOG="${RUST_LOG:-warn}"

started=$SECONDS
timeout 240 deploy/ha/cluster.sh start
echo "cluster started in $((SECONDS - started)) s"
timeout 240 deploy/ha/cluster.sh backup full >/dev/null
step=$SECONDS
timeout 600 python3 tests/ha/failover.py --rounds "${ROUNDS:-6}" ${WORP_HA_FAULTS:+--faults "$WORP_HA_FAULTS"} \
    ${WORP_HA_MARKDOWN:+--markdown "$WORP_HA_MARKDOWN"}
echo "failover test: $((SECONDS - step)) s"
if [ -x tests/ha/restore.sh ]; then
    step=$SECONDS
    timeout 300 bash tests/ha/restore.sh
    echo "restore drill: $((SECONDS - step)) s"
fi
echo "HA tests: $((SECONDS - started)) s in all"
