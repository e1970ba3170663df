#!/usr/bin/env bash
# Worp on a highly available PostgreSQL cluster, all on loopback ports of this machine:
# etcd (one member), three PostgreSQL 15 nodes under Patroni with synchronous
# replication, a fence beside each Patroni (fence.sh: no watchdog device here), HAProxy
# routing to the primary by Patroni's REST check, pgBackRest archiving WAL to a
# repository, two `worp serve` processes with one DATABASE_URL through that HAProxy,
# and a second HAProxy in front of them as the HTTP load balancer (LB_URL; by their
# GET /readyz). For trying it and for tests (tests/ha/); deploy/ha/README.md lays out
# the same on separate machines.
#
#   deploy/ha/cluster.sh start          start everything (free ports, a new state dir)
#   deploy/ha/cluster.sh status         members, roles, lag; the Worp processes
#   deploy/ha/cluster.sh stop           stop everything, keep the state dir (logs)
#   deploy/ha/cluster.sh clean          stop, then delete the state dir
#   deploy/ha/cluster.sh backup [full|diff|incr]   a pgBackRest backup (default full)
#   deploy/ha/cluster.sh env            the ports and URLs, as shell assignments
#   deploy/ha/cluster.sh worp-bin       the worp binary the cluster runs
#   deploy/ha/cluster.sh leader         the name of the primary's node
#   deploy/ha/cluster.sh kill-postgres NODE | stop-patroni NODE | start-patroni NODE
#   deploy/ha/cluster.sh kill-patroni NODE   SIGKILL of its Patroni (its fence acts)
#   deploy/ha/cluster.sh kill-node NODE      SIGKILL of its fence, Patroni and PostgreSQL
#                                            at once, as if its machine died
#   deploy/ha/cluster.sh start-node NODE     its fence and Patroni started again
#   deploy/ha/cluster.sh wait-healthy [SECONDS]   a primary, two streaming standbys, one sync
#
# State: $WORP_HA_DIR (default ${TMPDIR:-/tmp}/worp-ha): configurations, data
# directories, logs, pids, the backup repository, and `env` (ports and URLs). The
# `worp` binary: $WORP_BIN, else target/debug/worp (or $CARGO_TARGET_DIR's). The two
# `worp serve` processes inherit this script's environment, so WORP_* settings given
# to `start` apply to them, but for the per-address limits: the servers see only the
# load balancer, which refuses a client address's connections beyond
# WORP_HA_LB_CONNS_PER_ADDRESS at a time (default 64, as `worp serve`'s own; 0: off). Every wait
# is bounded; as root, PostgreSQL, Patroni, the fences and pgBackRest run as the
# `postgres` user (PostgreSQL refuses to run as root). Every process starts in the state
# dir (Patroni in its node's), never in the checkout, which `postgres` may not be able
# to enter (a root checkout under /root); what they read is copied there.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
STATE="${WORP_HA_DIR:-${TMPDIR:-/tmp}/worp-ha}"
case "$STATE" in /*) ;; *) STATE="$PWD/$STATE" ;; esac
NODES=(node1 node2 node3)
PG_BIN="${PG_BIN:-$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)}"
# Failover speed: a primary whose PostgreSQL died under a live Patroni is replaced
# within about LOOP_WAIT seconds; one whose Patroni was stopped or killed at once (the
# leader key is released by Patroni, or by the fence once PostgreSQL is down); one
# whose machine died (Patroni, fence and PostgreSQL gone) after the leader key expires,
# TTL seconds after its last renewal. LOOP_WAIT + 2 * RETRY_TIMEOUT <= TTL.
TTL="${WORP_HA_TTL:-7}"
LOOP_WAIT="${WORP_HA_LOOP_WAIT:-1}"
RETRY_TIMEOUT="${WORP_HA_RETRY_TIMEOUT:-3}"
LB_CONNS_PER_ADDRESS="${WORP_HA_LB_CONNS_PER_ADDRESS:-64}"

say() { echo "cluster.sh: $*" >&2; }
die() {
    say "$*"
    exit 1
}

# Runs a command as the owner of the PostgreSQL data (`postgres` when we are root), in
# the state dir: it may not be allowed into the directory we were started from.
as_owner() {
    if [ "$(id -u)" = 0 ]; then
        (cd "$STATE" && setpriv --reuid=postgres --regid=postgres --init-groups -- "$@")
    else
        (cd "$STATE" && "$@")
    fi
}

# wait_for SECONDS WHAT COMMAND...: runs COMMAND every 0.2 s until it succeeds.
wait_for() {
    local seconds=$1 what=$2
    shift 2
    local deadline=$((SECONDS + seconds))
    until "$@" >/dev/null 2>&1; do
        if [ "$SECONDS" -ge "$deadline" ]; then
            say "gave up after ${seconds}s waiting for $what"
            return 1
        fi
        sleep 0.2
    done
}

worp_bin() {
    local candidate
    for candidate in "${WORP_BIN:-}" "${CARGO_TARGET_DIR:+$CARGO_TARGET_DIR/debug/worp}" \
        "$ROOT/target/debug/worp" "$ROOT/target/release/worp"; do
        if [ -n "$candidate" ] && [ -x "$candidate" ]; then
            echo "$candidate"
            return 0
        fi
    done
    return 1
}

# N distinct free TCP ports on 127.0.0.1 (held together while chosen, so no repeats).
free_ports() {
    python3 - "$1" <<'EOF'
import socket, sys
socks = []
for _ in range(int(sys.argv[1])):
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    socks.append(s)
print(" ".join(str(s.getsockname()[1]) for s in socks))
EOF
}

load_env() {
    [ -f "$STATE/env" ] || die "no cluster state in $STATE (start it first)"
    # shellcheck disable=SC1091
    source "$STATE/env"
}

# spawn NAME OWNER COMMAND...: starts COMMAND in the background (as OWNER when we are
# root) with SPAWN_DIR (default the state dir) as its working directory, its output in
# logs/NAME.log, its pid in pids/NAME (written by the process itself, which then execs
# COMMAND).
spawn() {
    local name=$1 owner=$2
    shift 2
    local pidfile="$STATE/pids/$name" log="$STATE/logs/$name.log"
    rm -f "$pidfile"
    (
        cd "${SPAWN_DIR:-$STATE}" || exit 1
        if [ "$owner" = postgres ] && [ "$(id -u)" = 0 ]; then
            set -- setpriv --reuid=postgres --regid=postgres --init-groups -- "$@"
        fi
        nohup sh -c 'echo $$ > "$0"; exec "$@"' "$pidfile" "$@" </dev/null >>"$log" 2>&1 &
    )
    wait_for 5 "$name to start" test -s "$pidfile"
}

# Whether process PID is alive (a zombie, exited but not yet reaped, is not).
alive() {
    local stat
    stat=$(ps -o stat= -p "$1" 2>/dev/null) && [ -n "$stat" ] && [ "${stat:0:1}" != Z ]
}

running() {
    local pidfile="$STATE/pids/$1"
    [ -s "$pidfile" ] && alive "$(cat "$pidfile")"
}

not_alive() { ! alive "$1"; }

# halt NAME SECONDS: SIGTERM, then SIGKILL after SECONDS.
halt() {
    local name=$1 seconds=$2 pid
    running "$name" || {
        rm -f "$STATE/pids/$name"
        return 0
    }
    pid=$(cat "$STATE/pids/$name")
    kill -TERM "$pid" 2>/dev/null || true
    if ! wait_for "$seconds" "$name to stop" not_alive "$pid"; then
        say "$name did not stop on SIGTERM: SIGKILL"
        kill -KILL "$pid" 2>/dev/null || true
        wait_for 5 "$name to die" not_alive "$pid" || true
    fi
    rm -f "$STATE/pids/$name"
}

rest_port() { local v="REST_PORT_${1#node}"; echo "${!v}"; }
pg_port() { local v="PG_PORT_${1#node}"; echo "${!v}"; }

# The answer of node NODE's Patroni REST API to GET PATH (200 only).
rest_ok() { curl -fsS -m 2 -o /dev/null "http://127.0.0.1:$(rest_port "$1")$2"; }

leader() {
    local node
    for node in "${NODES[@]}"; do
        if rest_ok "$node" /primary 2>/dev/null; then
            echo "$node"
            return 0
        fi
    done
    return 1
}

# A primary, every other node a streaming standby, one of them synchronous, and
# HAProxy reaching the primary.
healthy() {
    local node primaries=0 replicas=0 sync=0
    for node in "${NODES[@]}"; do
        if rest_ok "$node" /primary; then
            primaries=$((primaries + 1))
        elif rest_ok "$node" '/replica?lag=16MB'; then
            replicas=$((replicas + 1))
            if rest_ok "$node" /sync; then sync=$((sync + 1)); fi
        fi
    done
    [ "$primaries" = 1 ] && [ "$replicas" = $((${#NODES[@]} - 1)) ] && [ "$sync" -ge 1 ] &&
        "$PG_BIN/pg_isready" -q -h 127.0.0.1 -p "$HAPROXY_PORT" -t 2
}

render() {
    local template=$1 out=$2
    shift 2
    local sed_args=() pair
    for pair in "$@"; do
        sed_args+=(-e "s|@${pair%%=*}@|${pair#*=}|g")
    done
    sed "${sed_args[@]}" "$template" >"$out"
    if grep -q '@[A-Z_]*@' "$out"; then
        die "unfilled placeholder in $out: $(grep -o '@[A-Z_]*@' "$out" | head -n 1)"
    fi
}

start_patroni() {
    local node=$1
    SPAWN_DIR="$STATE/$node" spawn "patroni-$node" postgres patroni "$STATE/$node/patroni.yml"
}

# The fence of NODE (fence.sh): stops its PostgreSQL, if primary, when its Patroni dies.
start_fence() {
    local node=$1
    spawn "fence-$node" postgres sh "$STATE/fence.sh" "$STATE/pids/patroni-$node" \
        "$STATE/$node/data" "$PG_BIN" "127.0.0.1:$ETCD_PORT" worp "$node"
}

write_configs() {
    local node n pg_paths="" servers=""
    for node in "${NODES[@]}"; do
        n=${node#node}
        mkdir -p "$STATE/$node"
        render "$HERE/patroni.yml.in" "$STATE/$node/patroni.yml" \
            NODE="$node" HOST=127.0.0.1 REST_PORT="$(rest_port "$node")" \
            PG_PORT="$(pg_port "$node")" ETCD_HOSTS="127.0.0.1:$ETCD_PORT" \
            TTL="$TTL" LOOP_WAIT="$LOOP_WAIT" RETRY_TIMEOUT="$RETRY_TIMEOUT" \
            HBA_NETWORK=127.0.0.1/32 HBA_METHOD=trust STATE="$STATE" PG_BIN="$PG_BIN" \
            SUPERUSER_PASSWORD="$SUPERUSER_PASSWORD" REPLICATION_PASSWORD="$REPLICATION_PASSWORD"
        render "$HERE/pgbackrest.conf.in" "$STATE/$node/pgbackrest.conf" STATE="$STATE" \
            PG_PATHS="pg1-path=$STATE/$node/data\npg1-port=$(pg_port "$node")\npg1-socket-path=$STATE/$node"
        pg_paths+="pg${n}-path=$STATE/$node/data\npg${n}-port=$(pg_port "$node")\npg${n}-socket-path=$STATE/$node\n"
        servers+="    server $node 127.0.0.1:$(pg_port "$node") check port $(rest_port "$node")\n"
    done
    render "$HERE/pgbackrest.conf.in" "$STATE/pgbackrest.conf" STATE="$STATE" PG_PATHS="$pg_paths"
    render "$HERE/haproxy.cfg.in" "$STATE/haproxy.cfg" HAPROXY_BIND=127.0.0.1 \
        HAPROXY_PORT="$HAPROXY_PORT" HAPROXY_STATS_PORT="$HAPROXY_STATS_PORT" \
        HAPROXY_SERVERS="$servers"
    local lb_servers="" lb_limit i
    for i in 1 2; do
        local port_var="WORP_PORT_$i"
        lb_servers+="    server worp$i 127.0.0.1:${!port_var} check\n"
    done
    if [ "$LB_CONNS_PER_ADDRESS" -gt 0 ]; then
        lb_limit="    # At most $LB_CONNS_PER_ADDRESS connections at a time from one client address; more are refused.\n"
        lb_limit+="    stick-table type ip size 100k expire 60s store conn_cur\n"
        lb_limit+="    tcp-request connection track-sc0 src\n"
        lb_limit+="    tcp-request connection reject if { sc0_conn_cur gt $LB_CONNS_PER_ADDRESS }"
    else
        lb_limit="    # No limit of connections per client address (WORP_HA_LB_CONNS_PER_ADDRESS=N sets one)."
    fi
    render "$HERE/haproxy-http.cfg.in" "$STATE/haproxy-http.cfg" LB_BIND=127.0.0.1 \
        LB_PORT="$LB_PORT" LB_STATS_PORT="$LB_STATS_PORT" LB_SERVERS="$lb_servers" LB_LIMIT="$lb_limit"
    # sed wrote the \n of the multi-line values literally: make them lines.
    local f
    for f in "$STATE"/node*/pgbackrest.conf "$STATE/pgbackrest.conf" "$STATE/haproxy.cfg" \
        "$STATE/haproxy-http.cfg"; do
        sed -i 's/\\n/\n/g' "$f"
    done
    # What processes running as `postgres` need, in the state dir.
    install -m 755 "$HERE/fence.sh" "$STATE/fence.sh"
}

pgbackrest_all() { as_owner pgbackrest --config="$STATE/pgbackrest.conf" --stanza=worp "$@"; }

psql_primary() { "$PG_BIN/psql" -X -q -v ON_ERROR_STOP=1 -h 127.0.0.1 -p "$HAPROXY_PORT" -U postgres "$@"; }

start() {
    command -v patroni >/dev/null || die "patroni is not installed (apt-get install patroni)"
    command -v etcd >/dev/null || die "etcd is not installed (apt-get install etcd-server)"
    command -v haproxy >/dev/null || die "haproxy is not installed (apt-get install haproxy)"
    command -v pgbackrest >/dev/null || die "pgbackrest is not installed (apt-get install pgbackrest)"
    command -v etcdctl >/dev/null || die "etcdctl is not installed (apt-get install etcd-client)"
    [ -x "$PG_BIN/initdb" ] || die "no PostgreSQL server under /usr/lib/postgresql/*/bin"
    local worp
    worp=$(worp_bin) || die "no worp binary: cargo build -p worp, or set WORP_BIN"
    if [ -f "$STATE/env" ]; then
        die "$STATE holds a cluster already (cluster.sh clean, or another WORP_HA_DIR)"
    fi
    mkdir -p "$STATE"/{pids,logs,log,lock,backups}
    cd "$STATE"
    local ports
    read -r -a ports <<<"$(free_ports 14)"
    SUPERUSER_PASSWORD=$(head -c 18 /dev/urandom | base64 | tr '+/' '-_')
    REPLICATION_PASSWORD=$(head -c 18 /dev/urandom | base64 | tr '+/' '-_')
    cat >"$STATE/env" <<EOF
ETCD_PORT=${ports[0]}
ETCD_PEER_PORT=${ports[1]}
PG_PORT_1=${ports[2]}
PG_PORT_2=${ports[3]}
PG_PORT_3=${ports[4]}
REST_PORT_1=${ports[5]}
REST_PORT_2=${ports[6]}
REST_PORT_3=${ports[7]}
HAPROXY_PORT=${ports[8]}
HAPROXY_STATS_PORT=${ports[9]}
WORP_PORT_1=${ports[10]}
WORP_PORT_2=${ports[11]}
LB_PORT=${ports[12]}
LB_STATS_PORT=${ports[13]}
SUPERUSER_PASSWORD=$SUPERUSER_PASSWORD
REPLICATION_PASSWORD=$REPLICATION_PASSWORD
DATABASE_URL=postgres://worp@127.0.0.1:${ports[8]}/worp
OWNER_URL=postgres://postgres@127.0.0.1:${ports[8]}/worp
WORP_URLS="http://127.0.0.1:${ports[10]} http://127.0.0.1:${ports[11]}"
LB_URL=http://127.0.0.1:${ports[12]}
PG_BIN=$PG_BIN
WORP_HA_DIR=$STATE
WORP_BIN=$worp
EOF
    chmod 600 "$STATE/env"
    load_env
    write_configs
    if [ "$(id -u)" = 0 ]; then
        chown -R postgres:postgres "$STATE"
        chown root:root "$STATE/env"
    fi
    local started=$SECONDS

    spawn etcd root etcd --name etcd1 --data-dir "$STATE/etcd" \
        --listen-client-urls "http://127.0.0.1:$ETCD_PORT" \
        --advertise-client-urls "http://127.0.0.1:$ETCD_PORT" \
        --listen-peer-urls "http://127.0.0.1:$ETCD_PEER_PORT" \
        --initial-advertise-peer-urls "http://127.0.0.1:$ETCD_PEER_PORT" \
        --initial-cluster "etcd1=http://127.0.0.1:$ETCD_PEER_PORT" \
        --initial-cluster-state new --initial-cluster-token "worp-ha-$$"
    wait_for 30 "etcd" curl -fsS -m 2 "http://127.0.0.1:$ETCD_PORT/health"

    local node
    for node in "${NODES[@]}"; do start_fence "$node"; done
    # The first node makes the cluster (initdb); the others copy it and follow.
    start_patroni node1
    wait_for 90 "node1 to become the primary" rest_ok node1 /primary || {
        tail -n 30 "$STATE/logs/patroni-node1.log" >&2
        exit 1
    }
    start_patroni node2
    start_patroni node3
    spawn haproxy root haproxy -db -f "$STATE/haproxy.cfg"
    wait_for 30 "HAProxy to reach the primary" \
        "$PG_BIN/pg_isready" -q -h 127.0.0.1 -p "$HAPROXY_PORT" -t 2

    wait_for 90 "both standbys streaming, one synchronous" healthy || {
        status >&2 || true
        exit 1
    }
    # pgBackRest's stanza, from every node (WAL the primary could not archive before
    # is retried by PostgreSQL).
    pgbackrest_all stanza-create >/dev/null

    # The database, migrated by its owner, and the server's login role (docs/operations.md).
    local exists
    exists=$(psql_primary -At -d postgres -c "SELECT count(*) FROM pg_database WHERE datname = 'worp'")
    if [ "$exists" = 0 ]; then
        psql_primary -d postgres -c "CREATE DATABASE worp"
    fi
    DATABASE_URL="$OWNER_URL" timeout 120 "$worp" rebuild >"$STATE/logs/migrate.log" 2>&1 || {
        cat "$STATE/logs/migrate.log" >&2
        die "migrating the database failed"
    }
    psql_primary -d worp -c "DO \$\$ BEGIN
        IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'worp') THEN
            CREATE ROLE worp LOGIN IN ROLE worp_server;
        END IF; END \$\$"

    # After SIGTERM a server answers 503 on /readyz for this long before it stops
    # listening: more than the load balancer needs to take it out (fall 2 × inter 1 s).
    local i
    for i in 1 2; do
        local port_var="WORP_PORT_$i"
        # Every connection comes from the load balancer: the per-address limits are the
        # load balancer's (WORP_HA_LB_CONNS_PER_ADDRESS), not the servers'.
        DATABASE_URL="$DATABASE_URL" WORP_BIND=127.0.0.1 PORT="${!port_var}" \
            WORP_SHUTDOWN_GRACE_SECS="${WORP_SHUTDOWN_GRACE_SECS:-3}" \
            WORP_CONNECTIONS_PER_ADDRESS=0 WORP_STREAMS_PER_ADDRESS=0 \
            spawn "worp$i" root "$worp" serve
    done
    for i in 1 2; do
        local port_var="WORP_PORT_$i"
        wait_for 60 "worp$i to be ready" curl -fsS -m 2 "http://127.0.0.1:${!port_var}/readyz" || {
            tail -n 20 "$STATE/logs/worp$i.log" >&2
            exit 1
        }
    done
    spawn lb root haproxy -db -f "$STATE/haproxy-http.cfg"
    wait_for 30 "the load balancer to reach a server" curl -fsS -m 2 "$LB_URL/readyz"
    say "started in $((SECONDS - started)) s; state in $STATE"
    say "worp: $LB_URL (load balancer) in front of $WORP_URLS; DATABASE_URL=$DATABASE_URL; primary: $(leader)"
}

stop() {
    [ -d "$STATE/pids" ] || return 0
    [ -f "$STATE/env" ] && load_env
    local node
    halt lb 10
    halt worp1 35 &
    halt worp2 35 &
    wait
    halt haproxy 10
    # Each Patroni stops its PostgreSQL (fast shutdown) before it exits; standbys
    # first, so the primary does not fail over to one on its way out.
    for node in "${NODES[@]}"; do
        if [ "$(leader 2>/dev/null)" != "$node" ]; then halt "patroni-$node" 60 & fi
    done
    wait
    for node in "${NODES[@]}"; do halt "patroni-$node" 60; done
    for node in "${NODES[@]}"; do halt "fence-$node" 5; done
    # A PostgreSQL left behind by a Patroni that had to be killed.
    for node in "${NODES[@]}"; do
        if [ -f "$STATE/$node/data/postmaster.pid" ]; then
            as_owner "$PG_BIN/pg_ctl" -D "$STATE/$node/data" -m immediate -t 30 -w stop \
                >/dev/null 2>&1 || true
        fi
    done
    halt etcd 10
    say "stopped (state kept in $STATE)"
}

status() {
    load_env
    local node
    if running etcd; then echo "etcd          127.0.0.1:$ETCD_PORT"; else echo "etcd          DOWN"; fi
    for node in "${NODES[@]}"; do
        local role=down
        if rest_ok "$node" /primary 2>/dev/null; then
            role=primary
        elif rest_ok "$node" /sync 2>/dev/null; then
            role="sync standby"
        elif rest_ok "$node" /replica 2>/dev/null; then
            role=standby
        elif running "patroni-$node"; then
            role="patroni up, postgres not serving"
        fi
        local fence=down
        if running "fence-$node"; then fence=up; fi
        printf '%-13s postgres 127.0.0.1:%s  patroni 127.0.0.1:%s  %s (fence %s)\n' "$node" \
            "$(pg_port "$node")" "$(rest_port "$node")" "$role" "$fence"
    done
    if running haproxy; then echo "haproxy       127.0.0.1:$HAPROXY_PORT (stats http://127.0.0.1:$HAPROXY_STATS_PORT/)"; else echo "haproxy       DOWN"; fi
    local i
    for i in 1 2; do
        local port_var="WORP_PORT_$i" ready=DOWN
        if curl -fsS -m 2 -o /dev/null "http://127.0.0.1:${!port_var}/readyz" 2>/dev/null; then ready=ready; fi
        echo "worp$i         http://127.0.0.1:${!port_var} $ready"
    done
    if running lb; then echo "lb            $LB_URL (stats http://127.0.0.1:$LB_STATS_PORT/)"; else echo "lb            DOWN"; fi
    if running "patroni-$(leader 2>/dev/null || echo node1)"; then
        as_owner patronictl -c "$STATE/node1/patroni.yml" list 2>/dev/null || true
    fi
}

# Nothing runs in the directory we were started from: the state dir, where it exists.
if [ -d "$STATE" ]; then cd "$STATE"; else cd /; fi

cmd=${1:-}
case "$cmd" in
start)
    trap 'status=$?; if [ $status -ne 0 ]; then say "start failed: stopping what started"; stop; fi' EXIT
    start
    trap - EXIT
    ;;
stop) stop ;;
clean)
    stop
    rm -rf "$STATE"
    ;;
status) status ;;
env) cat "$STATE/env" ;;
worp-bin)
    load_env
    echo "$WORP_BIN"
    ;;
leader)
    load_env
    leader
    ;;
backup)
    load_env
    pgbackrest_all --type="${2:-full}" backup
    pgbackrest_all info
    ;;
kill-postgres)
    load_env
    node=${2:?node}
    kill -KILL "$(head -n 1 "$STATE/$node/data/postmaster.pid")"
    ;;
stop-patroni)
    load_env
    halt "patroni-${2:?node}" 60
    ;;
start-patroni)
    load_env
    start_patroni "${2:?node}"
    ;;
kill-patroni)
    load_env
    kill -KILL "$(cat "$STATE/pids/patroni-${2:?node}")"
    ;;
kill-node)
    load_env
    node=${2:?node}
    pm=$(head -n 1 "$STATE/$node/data/postmaster.pid" 2>/dev/null || true)
    # The postmaster's children too: a machine that dies takes its backends with it.
    kill -KILL "$(cat "$STATE/pids/fence-$node")" "$(cat "$STATE/pids/patroni-$node")" \
        ${pm:+"$pm" $(ps -o pid= --ppid "$pm")} 2>/dev/null || true
    ;;
start-node)
    load_env
    node=${2:?node}
    running "fence-$node" || start_fence "$node"
    start_patroni "$node"
    ;;
wait-healthy)
    load_env
    wait_for "${2:-120}" "a healthy cluster" healthy
    ;;
*)
    sed -n '2,/^set -euo/p' "$0" | sed 's/^# \{0,1\}//' | head -n -1 >&2
    exit 2
    ;;
esac
