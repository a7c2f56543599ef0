#!/usr/bin/env bash
# Start or stop a throw-away PostgreSQL server for the tests.
#
#   scripts/ci/postgres.sh start DIR [PID]
#                                      initdb in DIR (as the postgres user when run as root),
#                                      listen on 127.0.0.1 only, on a free port, trust auth on
#                                      loopback, create database "tsqlbroker"; prints the URL
#                                      postgresql+psycopg://postgres@127.0.0.1:PORT/tsqlbroker;
#                                      with PID, a watchdog stops the server and removes DIR
#                                      once process PID is gone (a killed test run)
#   scripts/ci/postgres.sh stop DIR    stop that server and remove DIR
#
# PG_BINDIR overrides where initdb / pg_ctl are looked for (default: the newest
# /usr/lib/postgresql/*/bin, else $PATH).
set -euo pipefail

cmd=${1:?usage: postgres.sh start|stop DIR}
dir=${2:?usage: postgres.sh start|stop DIR}

bindir=${PG_BINDIR:-}
if [[ -z "$bindir" ]]; then
    for d in $(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V); do bindir=$d; done
fi
if [[ -z "$bindir" ]]; then
    bindir=$(dirname "$(command -v initdb)")
fi

# initdb refuses to run as root: run the server as the postgres user then.
as_pg() {
    if [[ $(id -u) -eq 0 ]]; then
        runuser -u postgres -- "$@"
    else
        "$@"
    fi
}

case "$cmd" in
start)
    mkdir -p "$dir"
    if [[ $(id -u) -eq 0 ]]; then chown postgres: "$dir"; fi
    port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
    as_pg "$bindir/initdb" -D "$dir/data" -U postgres --auth=trust -E UTF8 --locale=C.UTF-8 \
        >"$dir/initdb.log" 2>&1
    cat >>"$dir/data/postgresql.conf" <<CONF
listen_addresses = '127.0.0.1'
port = $port
unix_socket_directories = '$dir'
max_connections = 300
fsync = off
synchronous_commit = off
full_page_writes = off
shared_buffers = 128MB
CONF
    cat >"$dir/data/pg_hba.conf" <<HBA
local all all trust
host all all 127.0.0.1/32 trust
HBA
    as_pg "$bindir/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 start >/dev/null
    as_pg "$bindir/psql" -h 127.0.0.1 -p "$port" -U postgres -d postgres -qAt \
        -c 'CREATE DATABASE tsqlbroker' >/dev/null
    echo "$port" >"$dir/port"
    if [[ -n "${3:-}" ]]; then
        watch=$3
        self=$(readlink -f "$0")
        nohup setsid bash -c "while kill -0 $watch 2>/dev/null && [[ -d '$dir/data' ]]; do sleep 2; done; '$self' stop '$dir'" \
            >/dev/null 2>&1 </dev/null &
    fi
    echo "postgresql+psycopg://postgres@127.0.0.1:$port/tsqlbroker"
    ;;
stop)
    if [[ -d "$dir/data" ]]; then
        as_pg "$bindir/pg_ctl" -D "$dir/data" -m immediate -w stop >/dev/null 2>&1 || true
    fi
    rm -rf "$dir"
    ;;
*)
    echo "usage: postgres.sh start|stop DIR" >&2
    exit 2
    ;;
esac
