#!/usr/bin/env bash
# The test command: everything CI checks, with all its own set-up, on a fresh Debian 12
# machine (as root, with Rust stable):
#
#   bash tests/run.sh
#
# 1. Installs what is missing from Debian's packages: PostgreSQL's server (`postgresql`,
#    for initdb, pg_ctl and pgbench), OpenSSL's headers (`libssl-dev`, `pkg-config`, for
#    webauthn-rs), GNU Backgammon (`gnubg`), `python3-venv`, `npm`
#    and `curl`; tests/e2e/run.sh
#    installs `chromium` and npm's `playwright-core`, tests/clients/run.sh
#    openapi-typescript, openapi-fetch and typescript from npm and openapi-python-client
#    and mypy from PyPI (all pinned), tests/schemathesis/run.sh schemathesis from PyPI,
#    and the schema check `jsonschema` from PyPI.
# 2. Starts a private, throw-away PostgreSQL cluster (initdb in a temp directory, as the
#    `postgres` user when run as root; trust auth, on 127.0.0.1 only, on a free port, its
#    socket in that directory) and exports WORP_TEST_POSTGRES for the tests. It never
#    uses a PostgreSQL server that was already running. The cluster is stopped and its
#    directory deleted on exit, whether the run passes, fails or is interrupted.
# 3. Runs, in this order, with one cargo profile (dev) so nothing is built twice:
#    cargo fmt --check, cargo clippy -D warnings, cargo test --workspace, the variant
#    schema check, the web client end to end (tests/e2e/run.sh), clients generated from
#    the OpenAPI document playing every game (tests/clients/run.sh), schemathesis
#    (tests/schemathesis/run.sh) and failovers of a Patroni cluster with a restore drill
#    (tests/ha/run.sh; installs patroni, etcd-server, haproxy and pgbackrest, and is
#    skipped where they cannot be installed), printing how long each stage took.
#
# Sourced, it only defines its functions: e.g. one test on a private cluster,
#   bash -c 'source tests/run.sh && with_private_cluster cargo test -p worp --test api load'

apt_updated=
apt_install() {
    export DEBIAN_FRONTEND=noninteractive
    if [ -z "$apt_updated" ]; then
        apt-get update -q
        apt_updated=1
    fi
    apt-get install -y -q "$@"
}

# The newest PostgreSQL server installed from Debian's packages, as PG_BIN.
find_postgres() {
    PG_BIN=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)
    [ -n "$PG_BIN" ] && [ -x "$PG_BIN/initdb" ] && [ -x "$PG_BIN/pg_ctl" ]
}

ensure_packages() {
    if ! find_postgres; then
        echo "PostgreSQL's server is not installed: installing it from Debian's packages"
        apt_install postgresql
        find_postgres
    fi
    # OpenSSL's headers: webauthn-rs (passkeys) links the system's OpenSSL.
    if ! pkg-config --exists openssl 2>/dev/null; then
        echo "OpenSSL's headers are not installed: installing them from Debian's packages"
        apt_install libssl-dev pkg-config
    fi
    # GNU Backgammon: the .mat interchange test imports an exported game with it.
    if [ ! -x /usr/games/gnubg ] && [ ! -x /usr/bin/gnubg ]; then
        echo "GNU Backgammon is not installed: installing it from Debian's packages"
        apt_install gnubg
    fi
    # The schema check and schemathesis make Python virtual environments (Debian's
    # python3 makes them only with python3-venv).
    if ! python3 -c 'import ensurepip' >/dev/null 2>&1; then
        apt_install python3-venv
    fi
    # The e2e tests install playwright-core with npm; both they and schemathesis wait
    # for the server with curl.
    command -v npm >/dev/null || apt_install npm
    command -v curl >/dev/null || apt_install curl
}

# Runs a command as the owner of the private cluster: `postgres` when we are root
# (PostgreSQL refuses to run as root), ourselves otherwise.
as_owner() {
    if [ "$(id -u)" = 0 ]; then
        runuser -u postgres -- "$@"
    else
        "$@"
    fi
}

PG_DIR=
stop_cluster() {
    [ -n "$PG_DIR" ] || return 0
    if [ -f "$PG_DIR/data/postmaster.pid" ]; then
        as_owner "$PG_BIN/pg_ctl" -D "$PG_DIR/data" -m fast -t 30 -w stop >/dev/null 2>&1 ||
            as_owner "$PG_BIN/pg_ctl" -D "$PG_DIR/data" -m immediate -t 30 -w stop >/dev/null 2>&1 ||
            true
    fi
    rm -rf "$PG_DIR"
    PG_DIR=
}

free_port() {
    python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

start_cluster() {
    PG_DIR=$(mktemp -d "${TMPDIR:-/tmp}/worp-postgres.XXXXXX")
    if [ "$(id -u)" = 0 ]; then
        chown postgres:postgres "$PG_DIR"
    fi
    if ! as_owner "$PG_BIN/initdb" -D "$PG_DIR/data" -U postgres --auth=trust \
        -E UTF8 --locale=C >"$PG_DIR/initdb.log" 2>&1; then
        cat "$PG_DIR/initdb.log" >&2
        return 1
    fi
    # A port found free can be taken before the server binds it: try a few.
    local attempt
    for attempt in 1 2 3 4 5; do
        PG_PORT=$(free_port)
        if as_owner "$PG_BIN/pg_ctl" -D "$PG_DIR/data" -l "$PG_DIR/server.log" -w -t 60 \
            -o "-c listen_addresses=127.0.0.1 -p $PG_PORT -k $PG_DIR -c max_connections=200" \
            start >/dev/null; then
            export WORP_TEST_POSTGRES="postgres://postgres@127.0.0.1:$PG_PORT/postgres"
            echo "private PostgreSQL ($("$PG_BIN/postgres" --version)) on 127.0.0.1:$PG_PORT, in $PG_DIR"
            return 0
        fi
        echo "PostgreSQL did not start on port $PG_PORT (attempt $attempt)" >&2
    done
    tail -n 20 "$PG_DIR/server.log" >&2
    return 1
}

# Runs a command with WORP_TEST_POSTGRES on a private cluster, stopped afterwards (also
# on Ctrl-C). For a shell of its own: it sets the shell's EXIT, INT and TERM traps.
with_private_cluster() {
    find_postgres || {
        echo "no PostgreSQL server under /usr/lib/postgresql/*/bin (apt-get install postgresql)" >&2
        return 1
    }
    trap stop_cluster EXIT
    trap 'exit 130' INT
    trap 'exit 143' TERM
    start_cluster || return 1
    "$@"
}

set_up() {
    ensure_packages
    export PATH="$PG_BIN:$PATH"
    start_cluster
}

# Proof that the tests used the private cluster: the databases they created on it.
cargo_test() {
    cargo test --workspace
    echo "databases the tests created on the private cluster: $(psql -X -At \
        "$WORP_TEST_POSTGRES" -c "SELECT count(*) FROM pg_database WHERE datname LIKE 'worp_test_%'")"
}

# The published JSON Schemas of every game, checked by an independent validator.
variant_schemas() {
    local venv="${CARGO_TARGET_DIR:-target}/ci-venv"
    python3 -m venv "$venv"
    "$venv/bin/pip" install -q --disable-pip-version-check jsonschema
    "$venv/bin/python" tests/contract/variant_schemas.py "${CARGO_TARGET_DIR:-target}/debug/worp"
}

# The highly available PostgreSQL cluster (deploy/ha/: Patroni, etcd, HAProxy,
# pgBackRest): the failover test and the restore drill (tests/ha/run.sh, about 3
# minutes). Installs the packages when missing; where they cannot be installed, the
# stage says so and passes.
ha_tests() {
    if ! command -v patroni >/dev/null || ! command -v etcd >/dev/null ||
        ! command -v haproxy >/dev/null || ! command -v pgbackrest >/dev/null ||
        ! /usr/bin/python3 -c 'import etcd' 2>/dev/null; then
        echo "Patroni, etcd, HAProxy or pgBackRest is not installed: installing them from Debian's packages"
        apt_install patroni etcd-server etcd-client haproxy pgbackrest python3-etcd ||
            echo "could not install them: the HA tests will be skipped"
    fi
    WORP_BIN="${CARGO_TARGET_DIR:-target}/debug/worp" bash tests/ha/run.sh
}

if [ "${BASH_SOURCE[0]}" != "$0" ]; then
    return 0
fi

set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
# Nothing in the run may reach a database outside the private cluster.
unset DATABASE_URL
export RUST_BACKTRACE="${RUST_BACKTRACE:-1}"

# Stages, timed; on exit (pass, failure or interruption) the times so far and the cluster
# stopped.
STAGES=()
CURRENT=
RUN_STARTED=$SECONDS
finish() {
    local status=$?
    trap - EXIT INT TERM
    stop_cluster
    echo
    echo "== stage times"
    local line
    for line in "${STAGES[@]}"; do
        echo "   $line"
    done
    if [ "$status" -ne 0 ] && [ -n "$CURRENT" ]; then
        echo "   FAILED in: $CURRENT (exit $status)"
    fi
    echo "   whole run: $((SECONDS - RUN_STARTED)) s"
    exit "$status"
}
trap finish EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

stage() {
    CURRENT=$1
    shift
    echo
    echo "== $CURRENT"
    local started=$SECONDS
    "$@"
    STAGES+=("$(printf '%-22s %5d s' "$CURRENT" $((SECONDS - started)))")
    CURRENT=
}

stage "set-up" set_up
stage "cargo fmt --check" cargo fmt --all -- --check
stage "cargo clippy" cargo clippy --workspace --all-targets -- -D warnings
stage "cargo test" cargo_test
stage "variant schemas" variant_schemas
# The committed OpenAPI document under Redocly's recommended rules: no errors.
stage "openapi lint" bash tests/contract/lint.sh
# The web client, end to end in headless Chromium (reuses the worp the tests built).
stage "e2e (web client)" bash tests/e2e/run.sh
# Clients generated from the committed document (TypeScript and Python) type-check and
# play every variant against the server (reuses the worp the tests built).
stage "generated clients" bash tests/clients/run.sh
# Schemathesis against a running server: no 5xx, every response conforms to the spec.
stage "schemathesis" bash tests/schemathesis/run.sh
# Failovers of the PostgreSQL cluster under move load, and a point-in-time restore.
stage "ha failover" ha_tests
