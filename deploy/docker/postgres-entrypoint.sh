#!/bin/sh
# Creates the cluster on first start (POSTGRES_USER / POSTGRES_PASSWORD /
# POSTGRES_DB, as the official image does), then runs the server in the foreground.
set -eu
user=${POSTGRES_USER:-postgres}
db=${POSTGRES_DB:-$user}
if [ ! -s "$PGDATA/PG_VERSION" ]; then
  pwfile=$(mktemp)
  printf '%s\n' "${POSTGRES_PASSWORD:?POSTGRES_PASSWORD is required}" >"$pwfile"
  initdb --username="$user" --pwfile="$pwfile" --auth-local=trust --auth-host=scram-sha-256 \
    --encoding=UTF8 --locale=C.UTF-8 >/dev/null
  rm -f "$pwfile"
  echo "host all all all scram-sha-256" >>"$PGDATA/pg_hba.conf"
  if [ "$db" != postgres ]; then
    postgres --single -D "$PGDATA" postgres <<SQL >/dev/null
CREATE DATABASE "$db" OWNER "$user";
SQL
  fi
fi
exec postgres -c listen_addresses='*' "$@"
