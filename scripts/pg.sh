#!/usr/bin/env bash
# A throwaway PostgreSQL 15 server for tests and local runs.
#
#   scripts/pg.sh start DIR PORT   # initdb into DIR (if new) and start on PORT
#   scripts/pg.sh start DIR        # the same on a free port (tries ports until one binds)
#   scripts/pg.sh standby DIR PRIMARY_URL  # a streaming standby of that server
#   scripts/pg.sh stop DIR
#
# start prints the server's URL.
# The server listens on 127.0.0.1 and a socket in DIR, trusts local connections, and
# has a database "mamlaka". With PG_SOCKET_ONLY=1 it listens only on the socket in
# DIR (PORT then only names the socket, so any value is free), and the URL printed
# says so: tests that stop and start a server of their own use that. PostgreSQL
# refuses to run as root, so as root it runs as the "postgres" system user that the
# postgresql-15 package creates.
# standby takes a base backup of the server at PRIMARY_URL (one that pg.sh started:
# its "postgres" role may replicate) into DIR and starts it as a hot standby that
# streams from it, on the socket in DIR only; it prints the standby's URL (for the
# database "mamlaka": put another name in its path for another database).
# PG_SSL=1 (start): the server also serves TLS with a certificate for "localhost"
# signed by a CA made for this run (DIR/ssl/ca.crt), and the URL printed verifies
# it: host localhost, sslmode=verify-full, sslrootcert=DIR/ssl/ca.crt.
# PG_SERVER_OPTIONS adds server options, e.g. for a profile of a run:
#   PG_SERVER_OPTIONS="-c shared_preload_libraries=pg_stat_statements
#   -c pg_stat_statements.track=all"   (then CREATE EXTENSION pg_stat_statements)
set -euo pipefail

bindir=/usr/lib/postgresql/15/bin
cmd=${1:?usage: pg.sh start DIR [PORT] | standby DIR PRIMARY_URL | stop DIR}
dir=$(realpath -m "${2:?data folder}")  # the server puts its socket here: absolute

as_pg() {
  if [ "$(id -u)" -eq 0 ]; then
    runuser -u postgres -- "$@"
  else
    "$@"
  fi
}

# wal_keep_size: a standby's base backup streams the WAL from its start only once
# the backup has begun, and the tests sharing the server force checkpoints
# meanwhile (CREATE DATABASE); without WAL kept, the segment it needs may be gone.
start_server() {
  as_pg "$bindir/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 \
    -o "-p $1 -k $dir -c listen_addresses=$listen -c max_connections=200 -c wal_keep_size=256MB ${ssl_options:-} ${PG_SERVER_OPTIONS:-}" \
    start >/dev/null
}

# A CA for this run and the server's certificate for localhost, signed by it, in
# DIR/ssl (the key readable by the server alone); sets ssl_options.
make_certificates() {
  local ssl=$dir/ssl
  mkdir -p "$ssl"
  if [ ! -f "$ssl/server.crt" ]; then
    openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj "/CN=pg.sh run CA" \
      -keyout "$ssl/ca.key" -out "$ssl/ca.crt" 2>/dev/null
    openssl req -newkey rsa:2048 -nodes -subj "/CN=localhost" \
      -keyout "$ssl/server.key" -out "$ssl/server.csr" 2>/dev/null
    printf 'subjectAltName=DNS:localhost\n' >"$ssl/san.ext"
    openssl x509 -req -in "$ssl/server.csr" -CA "$ssl/ca.crt" -CAkey "$ssl/ca.key" \
      -CAcreateserial -days 2 -extfile "$ssl/san.ext" -out "$ssl/server.crt" 2>/dev/null
    chmod 600 "$ssl/server.key"
    [ "$(id -u)" -eq 0 ] && chown postgres:postgres "$ssl/server.key" "$ssl/server.crt"
  fi
  ssl_options="-c ssl=on -c ssl_cert_file=$ssl/server.crt -c ssl_key_file=$ssl/server.key"
}

case "$cmd" in
  start)
    port=${3:-auto}
    mkdir -p "$dir"
    [ "$(id -u)" -eq 0 ] && chown postgres:postgres "$dir"
    if [ ! -f "$dir/data/PG_VERSION" ]; then
      as_pg "$bindir/initdb" -D "$dir/data" -U postgres -A trust --no-sync -E UTF8 >"$dir/initdb.log"
    fi
    listen=127.0.0.1
    host=127.0.0.1
    [ "${PG_SSL:-0}" = 1 ] && make_certificates
    if [ "${PG_SOCKET_ONLY:-0}" = 1 ]; then
      listen="''"
      host=$dir
    fi
    if [ "$port" = auto ]; then
      # Binding is the only race-free test of a free port: try until one starts.
      # Below 32768, where the kernel hands out no ephemeral ports of its own.
      for _ in $(seq 20); do
        port=$((20000 + RANDOM % 12000))
        start_server "$port" && break
        port=
      done
      [ -n "$port" ] || { echo "pg.sh: no free port found (see $dir/server.log)" >&2; exit 1; }
    else
      start_server "$port"
    fi
    as_pg "$bindir/psql" -h "$host" -p "$port" -U postgres -tAc \
      "SELECT 1 FROM pg_database WHERE datname='mamlaka'" | grep -q 1 ||
      as_pg "$bindir/createdb" -h "$host" -p "$port" -U postgres mamlaka
    if [ "${PG_SOCKET_ONLY:-0}" = 1 ]; then
      echo "postgresql://postgres@/mamlaka?host=$dir&port=$port"
    elif [ "${PG_SSL:-0}" = 1 ]; then
      echo "postgresql://postgres@localhost:$port/mamlaka?sslmode=verify-full&sslrootcert=$dir/ssl/ca.crt"
    else
      echo "postgresql://postgres@127.0.0.1:$port/mamlaka"
    fi
    ;;
  standby)
    primary=${3:?usage: pg.sh standby DIR PRIMARY_URL}
    mkdir -p "$dir"
    [ "$(id -u)" -eq 0 ] && chown postgres:postgres "$dir"
    as_pg "$bindir/pg_basebackup" -d "$primary" -D "$dir/data" -R -X stream -c fast \
      --no-sync >"$dir/basebackup.log" 2>&1 || { cat "$dir/basebackup.log" >&2; exit 1; }
    listen="''"
    start_server 5432
    echo "postgresql://postgres@/mamlaka?host=$dir&port=5432"
    ;;
  stop)
    if [ -f "$dir/data/postmaster.pid" ]; then
      as_pg "$bindir/pg_ctl" -D "$dir/data" -m fast -w stop >/dev/null
    fi
    ;;
  *)
    echo "usage: pg.sh start DIR [PORT] | standby DIR PRIMARY_URL | stop DIR" >&2
    exit 2
    ;;
esac
