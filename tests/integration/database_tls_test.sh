#!/usr/bin/env bash
# The services over TLS that verifies the database, as the prod overlay connects
# (sslmode=verify-full, sslrootcert the cluster's CA): a throwaway PostgreSQL
# serving a certificate for "localhost" from a CA made for this run
# (PG_SSL=1 scripts/pg.sh start). With that CA, table-service and ratings-service
# apply the migrations and the serving ratings service's sessions are TLS; with
# another CA, or dialling a host name the certificate does not name, both refuse
# the server and say why.
#
#   tests/integration/database_tls_test.sh   # needs build/bin/{table-service,ratings-service}
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
bin=${MAMLAKA_BIN:-$root/build/bin}
work=$(mktemp -d /tmp/database-tls-XXXXXX)
chmod 755 "$work"  # the server runs as postgres when we are root
ratings_pid=""
cleanup() {
  [ -z "$ratings_pid" ] || { kill -TERM "$ratings_pid" 2>/dev/null; wait "$ratings_pid" 2>/dev/null || true; }
  "$root/scripts/pg.sh" stop "$work/pg" >/dev/null 2>&1 || true
  rm -rf "$work"
}
trap cleanup EXIT
failed=0
pass() { echo "PASS $1"; }
fail() { echo "FAIL $1"; failed=$((failed + 1)); }

url=$(PG_SSL=1 "$root/scripts/pg.sh" start "$work/pg")
port=$(sed -E 's|.*@localhost:([0-9]+)/.*|\1|' <<<"$url")
openssl req -x509 -newkey rsa:2048 -nodes -days 1 -subj "/CN=another CA" \
  -keyout "$work/other-ca.key" -out "$work/other-ca.crt" 2>/dev/null
other_ca=${url//$work\/pg\/ssl\/ca.crt/$work/other-ca.crt}
other_host=${url//@localhost:/@127.0.0.1:}

migrate() {  # binary url: runs --migrate_only, output in $work/out
  "$bin/$1" --migrate_only --database_url="$2" --migrations_dir="$root/migrations" \
    --metrics_port=-1 >"$work/out" 2>&1
}
for service in table-service ratings-service; do
  if migrate "$service" "$url"; then pass "$service migrates over verified TLS"
  else cat "$work/out"; fail "$service migrates over verified TLS"; fi
  if migrate "$service" "$other_ca"; then fail "$service accepted a server another CA signed"
  elif grep -q "certificate verify failed" "$work/out"; then pass "$service refuses a server another CA signed"
  else cat "$work/out"; fail "$service refuses a server another CA signed (no reason given)"; fi
  if migrate "$service" "$other_host"; then fail "$service accepted a certificate for another host"
  elif grep -q 'does not match host name' "$work/out"; then pass "$service refuses a certificate for another host"
  else cat "$work/out"; fail "$service refuses a certificate for another host (no reason given)"; fi
done

"$bin/ratings-service" --database_url="$url" --listen=127.0.0.1:0 --service_token=tls-test \
  --metrics_port=-1 --migrations_dir="$root/migrations" >"$work/ratings.log" 2>&1 &
ratings_pid=$!
for _ in $(seq 100); do grep -q '"msg":"serving"' "$work/ratings.log" && break; sleep 0.1; done
sessions=$(psql "$url" -tAc "SELECT count(*) FILTER (WHERE s.ssl), count(*)
  FROM pg_stat_activity a JOIN pg_stat_ssl s USING (pid)
  WHERE a.application_name LIKE 'ratings-service%' OR a.application_name LIKE 'mamlaka%'")
if [[ "$sessions" =~ ^([1-9][0-9]*)\|([0-9]+)$ ]] && [ "${BASH_REMATCH[1]}" = "${BASH_REMATCH[2]}" ]; then
  pass "the serving ratings service's sessions are all TLS ($sessions)"
else
  cat "$work/ratings.log"; fail "the serving ratings service's sessions are all TLS (TLS|all: $sessions)"
fi
[ "$failed" -eq 0 ]
