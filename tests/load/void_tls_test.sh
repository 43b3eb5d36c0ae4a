#!/usr/bin/env bash
# A load run's void step over TLS (CTest: load_void_tls_test): a real table-service
# serving mutual TLS (certificates from scripts/make-certs.sh, a client certificate
# of the run's CA required) and build/bin/table-load dialling it with its --tls
# flags. The run's players move slowly (--rate=4), so its tables are still being
# played when it ends, and the tool voids them (VoidTable) over the same TLS
# channels. Passes when the tool voided at least one table and failed none, and no
# game of the run is left unfinished in the database. About 15 seconds.
# Needs build/bin/{table-service,table-load}, openssl and psql (scripts/pg.sh).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
bin=${MAMLAKA_BIN:-$root/build/bin}

# shellcheck source=scripts/lib/stack.sh
. "$root/scripts/lib/stack.sh"
stack_workdir void-tls
cleanup() {
  local status=$?
  trap - EXIT
  set +e
  stack_teardown "$status"
  exit "$status"
}
trap cleanup EXIT
fail() {
  echo "void_tls_test: FAILED: $*" >&2
  tail -n 20 "$work/table-load.log" "$work/table.log" >&2
  exit 1
}

certs=$work/certs
for name in table client; do
  DAYS=1 "$root/scripts/make-certs.sh" "$certs" "$name" localhost 127.0.0.1
done
stack_postgres
psql_() { /usr/lib/postgresql/15/bin/psql "$url" -v ON_ERROR_STOP=1 -tAc "$1"; }
token=$(head -c 18 /dev/urandom | base64 | tr -d '/+=')
stack_start table table-service --instance_id=void-tls-1 --peer_rate=0 \
  --tls_cert="$certs/table.crt" --tls_key="$certs/table.key" --tls_client_ca="$certs/ca.crt" \
  --default_contract_ms=3600000 --default_doubling_ms=3600000 --default_card_ms=3600000

status=0
MAMLAKA_SERVICE_TOKEN=$token "$bin/table-load" --target="127.0.0.1:${port[table]}" \
  --tls_ca="$certs/ca.crt" --tls_client_cert="$certs/client.crt" \
  --tls_client_key="$certs/client.key" --tables=4 --channels=1 --rate=4 \
  --warmup=1s --duration=3s --drain=1s --target_rate=0 --target_p99_ms=100000 \
  >"$work/result.txt" 2>"$work/table-load.log" || status=$?
[ "$status" -eq 0 ] || fail "table-load exited $status"
counts=$(grep 'tables voided:' "$work/table-load.log") || fail "table-load voided nothing"
echo "void_tls_test: $counts"
voided=$(echo "$counts" | sed -n 's/.*tables voided: \([0-9]*\).*/\1/p')
[ "$voided" -gt 0 ] || fail "no table was left to void: $counts"
[[ "$counts" == *"failed 0)"* ]] || fail "some VoidTable calls failed: $counts"
left=$(psql_ "SELECT count(*) FROM games WHERE finished IS NULL")
[ "$left" -eq 0 ] || fail "$left games of the run are still unfinished"
echo "void_tls_test: passed"
