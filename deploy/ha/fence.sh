#!/bin/sh
# Fencing for a PostgreSQL node under Patroni where there is no watchdog device
# (/dev/watchdog; no `softdog` module, e.g. in a container or a microVM): run one per
# node, as the owner of the data directory, next to Patroni.
#
#   fence.sh PATRONI_PIDFILE DATA_DIR PG_BIN ETCD_ENDPOINTS SCOPE NAME
#
# Patroni's watchdog resets the machine when Patroni stops renewing it while its node is
# the primary, so that a primary whose Patroni died or hung cannot go on taking writes
# beside the one promoted after the leader key expired. Without one, the old PostgreSQL
# would stay an unfenced primary until its Patroni came back. This loop does the same
# for the two ways Patroni goes away on a live machine: when the Patroni process whose
# pid PATRONI_PIDFILE holds is dead (killed: a Patroni that stops normally stops its
# PostgreSQL first and its pid file is removed) or stopped (SIGSTOP, state T) for 2 s,
# and the node's PostgreSQL runs as a primary (no standby.signal), it
#   1. stops that PostgreSQL at once (`pg_ctl stop -m immediate`, then SIGKILL), and
#   2. once it is down, deletes the leader key in etcd if this node holds it
#      (/service/SCOPE/leader = NAME, compared and deleted in one transaction), as a
#      Patroni that stops normally does: the synchronous standby, which has every
#      acknowledged commit, is promoted at once instead of after `ttl` seconds.
# When Patroni comes back it finds PostgreSQL stopped and another primary: it rejoins
# the node as a standby (pg_rewind). A machine that dies takes its PostgreSQL with it;
# then the leader key expires after `ttl` seconds.
set -u
PIDFILE=$1 DATA=$2 PG_BIN=$3 ETCD=$4 SCOPE=$5 NAME=$6
INTERVAL=${FENCE_INTERVAL:-0.2}
STOPPED_GRACE=${FENCE_STOPPED_GRACE:-2}
KEY="/service/$SCOPE/leader"

say() { echo "$(date -u '+%Y-%m-%d %H:%M:%S.%3N') fence $NAME: $*"; }

postmaster() {
    [ -f "$DATA/postmaster.pid" ] || return 1
    pm=$(head -n 1 "$DATA/postmaster.pid" 2>/dev/null) || return 1
    [ -n "$pm" ] && kill -0 "$pm" 2>/dev/null
}

fence() {
    why=$1
    say "Patroni $why and PostgreSQL (pid $pm) runs as primary: stopping it (immediate)"
    "$PG_BIN/pg_ctl" -D "$DATA" -m immediate -t 3 -w stop >/dev/null 2>&1 || true
    if postmaster; then
        say "PostgreSQL still there: SIGKILL"
        kill -KILL "$pm" 2>/dev/null || true
    fi
    n=0
    while postmaster && [ $n -lt 50 ]; do
        sleep 0.1
        n=$((n + 1))
    done
    if postmaster; then
        say "PostgreSQL did not stop: the leader key is left to expire"
        return
    fi
    printf 'value("%s") = "%s"\n\ndel %s\n\n\n' "$KEY" "$NAME" "$KEY" |
        ETCDCTL_API=3 etcdctl --endpoints="$ETCD" --dial-timeout=1s --command-timeout=2s txn \
            >/dev/null 2>&1 && released="leader key released" || released="leader key not released"
    say "PostgreSQL stopped; $released"
}

say "watching Patroni ($PIDFILE) and PostgreSQL ($DATA)"
stopped_since=
while :; do
    sleep "$INTERVAL"
    [ -s "$PIDFILE" ] || continue
    pid=$(cat "$PIDFILE" 2>/dev/null) || continue
    [ -n "$pid" ] || continue
    state=$(ps -o stat= -p "$pid" 2>/dev/null | cut -c1)
    case "$state" in
    "" | Z) why="is dead (pid $pid)" ;;
    T)
        now=$(date +%s)
        : "${stopped_since:=$now}"
        [ $((now - stopped_since)) -ge "$STOPPED_GRACE" ] || continue
        why="is stopped (pid $pid)"
        ;;
    *)
        stopped_since=
        continue
        ;;
    esac
    # A standby (standby.signal) is harmless; only a primary is fenced.
    if postmaster && [ ! -f "$DATA/standby.signal" ]; then
        fence "$why"
    fi
done
