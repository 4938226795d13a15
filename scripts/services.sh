#!/usr/bin/env bash
# scripts/services.sh: the servers `jsoncost store` and the store tests read from, on loopback only.
#
#   scripts/services.sh start            # install what is missing, then start every service (idempotent)
#   eval "$(scripts/services.sh env)"    # export JSONCOST_TEST_REDIS_URL, JSONCOST_TEST_REDIS_CLUSTER_URL, JSONCOST_TEST_PG_URL
#   cargo test -p jsoncost-stores        # the Redis, Redis Cluster and PostgreSQL tests then run instead of being skipped
#   scripts/services.sh status           # what is running
#   scripts/services.sh stop             # stop everything and delete the state directory
#
# Services (127.0.0.1 only):
#   Redis standalone   redis://127.0.0.1:16379
#   Redis Cluster      redis+cluster://127.0.0.1:17001,127.0.0.1:17002,127.0.0.1:17003 (3 masters, no replicas)
#   PostgreSQL         postgres://postgres@127.0.0.1:15432/jsoncost (trust auth; runs as the `postgres` user when started by root)
# State (data, logs, pid files) lives in $JSONCOST_SERVICES_DIR (default /tmp/jsoncost-services).
# A missing redis-server or PostgreSQL is installed with apt-get (as root only; otherwise the script says what to install);
# PostgreSQL's initdb/pg_ctl are taken from PATH, else from the newest /usr/lib/postgresql/*/bin (no version is pinned).
# Every wait is bounded; on failure the script names the service, the log to read, and exits non-zero.
set -euo pipefail

STATE_DIR="${JSONCOST_SERVICES_DIR:-/tmp/jsoncost-services}"
REDIS_PORT=16379
CLUSTER_PORTS=(17001 17002 17003)
PG_PORT=15432
PG_DB=jsoncost
PG_USER=postgres
WAIT_SECONDS=30

say() { echo "services: $*" >&2; }
die() {
    echo "services: error: $*" >&2
    exit 1
}

# Polls `$@` every 0.2 s until it succeeds or WAIT_SECONDS pass.
wait_for() {
    local tries=$((WAIT_SECONDS * 5))
    for ((i = 0; i < tries; i++)); do
        if "$@" >/dev/null 2>&1; then return 0; fi
        sleep 0.2
    done
    return 1
}

# ---------- installation ----------

ensure_redis_installed() {
    if command -v redis-server >/dev/null && command -v redis-cli >/dev/null; then return 0; fi
    [ "$(id -u)" = 0 ] || die "redis-server is not installed and this is not root; install it (apt-get install -y redis-server)"
    say "installing redis-server with apt-get"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -q >&2 || die "apt-get update failed"
    apt-get install -y -q redis-server >&2 || die "apt-get install -y redis-server failed"
    command -v redis-server >/dev/null || die "redis-server still not on PATH after installing it"
}

PG_BIN=""
find_pg_bin() {
    local initdb
    if initdb=$(command -v initdb 2>/dev/null); then
        PG_BIN=$(dirname "$(readlink -f "$initdb")")
    else
        PG_BIN=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1 || true)
    fi
    [ -n "$PG_BIN" ] && [ -x "$PG_BIN/initdb" ] && [ -x "$PG_BIN/pg_ctl" ]
}

ensure_pg_installed() {
    if find_pg_bin; then return 0; fi
    [ "$(id -u)" = 0 ] || die "PostgreSQL (initdb, pg_ctl) is not installed and this is not root; install it (apt-get install -y postgresql)"
    say "installing postgresql with apt-get"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -q >&2 || die "apt-get update failed"
    apt-get install -y -q postgresql >&2 || die "apt-get install -y postgresql failed"
    find_pg_bin || die "initdb/pg_ctl not found after installing postgresql (looked on PATH and in /usr/lib/postgresql/*/bin)"
}

# PostgreSQL refuses to run as root: run its tools as the postgres user then.
as_pg() {
    if [ "$(id -u)" = 0 ]; then
        runuser -u "$PG_USER" -- "$@"
    else
        "$@"
    fi
}

# ---------- Redis ----------

redis_up() { [ "$(redis-cli -h 127.0.0.1 -p "$1" ping 2>/dev/null)" = PONG ]; }

start_redis_node() {
    local port=$1 dir=$2
    shift 2
    if redis_up "$port"; then return 0; fi
    rm -rf "$dir"
    mkdir -p "$dir"
    redis-server --port "$port" --bind 127.0.0.1 --daemonize yes --save '' --appendonly no \
        --dir "$dir" --pidfile "$dir/redis.pid" --logfile "$dir/redis.log" "$@" ||
        die "redis-server on port $port did not start; see $dir/redis.log"
    wait_for redis_up "$port" || die "redis-server on port $port does not answer PING after ${WAIT_SECONDS}s; see $dir/redis.log"
}

cluster_ok() { redis-cli -h 127.0.0.1 -p "$1" cluster info 2>/dev/null | grep -q '^cluster_state:ok'; }

all_cluster_ok() {
    local port
    for port in "${CLUSTER_PORTS[@]}"; do cluster_ok "$port" || return 1; done
}

known_nodes() { redis-cli -h 127.0.0.1 -p "$1" cluster info 2>/dev/null | sed -n 's/^cluster_known_nodes:\([0-9]*\).*/\1/p'; }

start_cluster() {
    local port nodes=()
    for port in "${CLUSTER_PORTS[@]}"; do
        start_redis_node "$port" "$STATE_DIR/cluster/$port" --cluster-enabled yes --cluster-config-file nodes.conf --cluster-node-timeout 5000
        nodes+=("127.0.0.1:$port")
    done
    if all_cluster_ok; then return 0; fi
    local fresh=1
    for port in "${CLUSTER_PORTS[@]}"; do
        [ "$(known_nodes "$port")" = 1 ] || fresh=0
    done
    if [ "$fresh" = 1 ]; then
        say "creating the Redis Cluster ${nodes[*]}"
        redis-cli --cluster create "${nodes[@]}" --cluster-replicas 0 --cluster-yes >"$STATE_DIR/cluster/create.log" 2>&1 ||
            die "redis-cli --cluster create failed; see $STATE_DIR/cluster/create.log"
    fi
    wait_for all_cluster_ok ||
        die "the Redis Cluster on ${CLUSTER_PORTS[*]} is not cluster_state:ok after ${WAIT_SECONDS}s; run '$0 stop' then '$0 start'"
}

stop_redis_node() {
    local port=$1 dir=$2 pid=""
    # Read the pid first: redis-server removes its pid file as it shuts down.
    [ -f "$dir/redis.pid" ] && pid=$(cat "$dir/redis.pid")
    if redis_up "$port"; then
        redis-cli -h 127.0.0.1 -p "$port" shutdown nosave >/dev/null 2>&1 || true
    fi
    if [ -n "$pid" ]; then
        for ((i = 0; i < 50; i++)); do
            kill -0 "$pid" 2>/dev/null || break
            sleep 0.1
        done
        if kill -0 "$pid" 2>/dev/null; then kill -9 "$pid" 2>/dev/null || true; fi
    fi
}

# ---------- PostgreSQL ----------

PG_DIR="$STATE_DIR/postgres"
PG_DATA="$PG_DIR/data"
PG_LOG="$PG_DIR/postgres.log"

pg_up() { as_pg "$PG_BIN/pg_isready" -q -h 127.0.0.1 -p "$PG_PORT"; }

start_postgres() {
    if ! pg_up; then
        if [ ! -f "$PG_DATA/PG_VERSION" ]; then
            rm -rf "$PG_DIR"
            mkdir -p "$PG_DIR"
            if [ "$(id -u)" = 0 ]; then
                id "$PG_USER" >/dev/null 2>&1 || useradd --system --no-create-home --shell /usr/sbin/nologin "$PG_USER" ||
                    die "there is no '$PG_USER' user and useradd failed"
                chown "$PG_USER" "$PG_DIR"
            fi
            as_pg "$PG_BIN/initdb" -D "$PG_DATA" -U "$PG_USER" --auth=trust --no-sync -E UTF8 >"$PG_DIR/initdb.log" 2>&1 ||
                die "initdb failed; see $PG_DIR/initdb.log"
        fi
        # fsync off: test data is disposable, and loading must stay quick on a shared 2-core machine.
        as_pg "$PG_BIN/pg_ctl" -D "$PG_DATA" -l "$PG_LOG" -w -t "$WAIT_SECONDS" \
            -o "-p $PG_PORT -c listen_addresses=127.0.0.1 -k $PG_DIR -c fsync=off -c synchronous_commit=off -c full_page_writes=off" \
            start >/dev/null || die "PostgreSQL did not start on port $PG_PORT; see $PG_LOG"
    fi
    wait_for pg_up || die "PostgreSQL does not accept connections on 127.0.0.1:$PG_PORT after ${WAIT_SECONDS}s; see $PG_LOG"
    local exists
    exists=$(as_pg "$PG_BIN/psql" -h 127.0.0.1 -p "$PG_PORT" -U "$PG_USER" -d postgres -tAc "SELECT 1 FROM pg_database WHERE datname = '$PG_DB'") ||
        die "cannot query PostgreSQL on 127.0.0.1:$PG_PORT; see $PG_LOG"
    if [ "$exists" != 1 ]; then
        as_pg "$PG_BIN/createdb" -h 127.0.0.1 -p "$PG_PORT" -U "$PG_USER" "$PG_DB" || die "createdb $PG_DB failed; see $PG_LOG"
    fi
}

stop_postgres() {
    find_pg_bin || return 0
    if [ -f "$PG_DATA/postmaster.pid" ]; then
        as_pg "$PG_BIN/pg_ctl" -D "$PG_DATA" -m fast -w -t "$WAIT_SECONDS" stop >/dev/null 2>&1 || say "pg_ctl stop failed; see $PG_LOG"
    fi
}

# ---------- commands ----------

cmd_start() {
    ensure_redis_installed
    ensure_pg_installed
    mkdir -p "$STATE_DIR"
    chmod 755 "$STATE_DIR"
    start_redis_node "$REDIS_PORT" "$STATE_DIR/redis"
    start_cluster
    start_postgres
    say "all services are up (state in $STATE_DIR); next: eval \"\$($0 env)\""
}

cmd_stop() {
    local port
    if command -v redis-cli >/dev/null; then
        stop_redis_node "$REDIS_PORT" "$STATE_DIR/redis"
        for port in "${CLUSTER_PORTS[@]}"; do stop_redis_node "$port" "$STATE_DIR/cluster/$port"; done
    fi
    stop_postgres
    rm -rf "$STATE_DIR"
    say "stopped; removed $STATE_DIR"
}

cmd_env() {
    local cluster="" port
    for port in "${CLUSTER_PORTS[@]}"; do cluster+="${cluster:+,}127.0.0.1:$port"; done
    echo "export JSONCOST_TEST_REDIS_URL=redis://127.0.0.1:$REDIS_PORT"
    echo "export JSONCOST_TEST_REDIS_CLUSTER_URL=redis+cluster://$cluster"
    echo "export JSONCOST_TEST_PG_URL=postgres://$PG_USER@127.0.0.1:$PG_PORT/$PG_DB"
}

cmd_status() {
    local port state
    redis_up "$REDIS_PORT" && state=up || state=down
    echo "redis          127.0.0.1:$REDIS_PORT  $state"
    for port in "${CLUSTER_PORTS[@]}"; do
        if cluster_ok "$port"; then state="up (cluster_state:ok)"; elif redis_up "$port"; then state="up (cluster not ok)"; else state=down; fi
        echo "redis-cluster  127.0.0.1:$port  $state"
    done
    if find_pg_bin && pg_up; then state=up; else state=down; fi
    echo "postgres       127.0.0.1:$PG_PORT  $state"
}

case "${1:-}" in
    start) cmd_start ;;
    stop) cmd_stop ;;
    env) cmd_env ;;
    status) cmd_status ;;
    *)
        echo "usage: $0 start|stop|env|status (see the comments at the top of this script)" >&2
        exit 2
        ;;
esac
