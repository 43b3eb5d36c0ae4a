#!/usr/bin/env bash
# TLS on every hop, end to end (CTest: e2e.tls_stack_test): the real table,
# ratings and matchmaking services as processes with certificates from a CA made
# for this run (scripts/make-certs.sh), mutual TLS between the services (the table
# and ratings services require a client certificate of that CA; matchmaking, which
# players reach from outside, serves TLS and asks for none), and trix-demo playing
# the backend with the real trix-bot processes it starts, all dialling over TLS
# with the run's CA and a client certificate. Checks:
#   - who is turned away: a plaintext client by every server, a client trusting
#     another CA, a client of the table service without a client certificate or
#     with one of another CA, a name the certificate does not hold;
#   - the table service's certificate renewed while the games play: new
#     connections get the new one (no restart), and the games play on;
#   - trix-demo exits 0: every player seated through matchmaking, every game
#     played to its end, consistent, rated and settled through the ratings service.
# Needs build/bin/{table-service,ratings-service,matchmaking-service,trix-demo,
# trix-bot}, openssl, python3-grpcio, and psql (scripts/pg.sh).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
bin=${MAMLAKA_BIN:-$root/build/bin}

# shellcheck source=scripts/lib/stack.sh
. "$root/scripts/lib/stack.sh"
stack_workdir tls
demo_pid=""
cleanup() {
  local status=$?
  trap - EXIT
  set +e
  [ -z "$demo_pid" ] || { kill -TERM "$demo_pid" 2>/dev/null; wait "$demo_pid" 2>/dev/null; }
  stack_teardown "$status"
  exit "$status"
}
trap cleanup EXIT

passed=0
failed=0
check() {  # name, then the condition's command
  local name=$1
  shift
  if "$@"; then echo "PASS $name"; passed=$((passed + 1)); else echo "FAIL $name"; failed=$((failed + 1)); fi
}
refused() { ! "$@"; }

# The run's CA and certificates: one per service (its client certificate too),
# one for the backend and its bots; another CA that nobody trusts.
certs=$work/certs
for name in table ratings matchmaking client; do
  DAYS=1 "$root/scripts/make-certs.sh" "$certs" "$name" localhost 127.0.0.1
done
DAYS=1 "$root/scripts/make-certs.sh" "$work/other" stranger localhost 127.0.0.1
dial=(--tls_ca="$certs/ca.crt")

stack_postgres
token=$(head -c 18 /dev/urandom | base64 | tr -d '/+=')
stack_start table table-service --instance_id=tls-1 --peer_rate=100000 --peer_burst=100000 \
  --tls_cert="$certs/table.crt" --tls_key="$certs/table.key" \
  --tls_client_ca="$certs/ca.crt" --tls_refresh=1s
stack_start ratings ratings-service \
  --tls_cert="$certs/ratings.crt" --tls_key="$certs/ratings.key" --tls_client_ca="$certs/ca.crt"
stack_start matchmaking matchmaking-service --ratings_address="127.0.0.1:${port[ratings]}" \
  --stake_levels=100 --bot_fill_wait=2s \
  --tls_cert="$certs/matchmaking.crt" --tls_key="$certs/matchmaking.key" \
  "${dial[@]}" --tls_client_cert="$certs/matchmaking.crt" --tls_client_key="$certs/matchmaking.key"

# Debian's python3 with python3-grpcio (not whichever python3 comes first).
probe() { /usr/bin/python3 "$root/tests/e2e/tls_probe.py" "$@"; }
table=127.0.0.1:${port[table]}
ratings=127.0.0.1:${port[ratings]}
matchmaking=127.0.0.1:${port[matchmaking]}
client=(--ca "$certs/ca.crt" --cert "$certs/client.crt" --key "$certs/client.key")
for name in table ratings matchmaking; do
  address=127.0.0.1:${port[$name]}
  check "$name: a client with the run's CA and a client certificate is served" probe "$address" "${client[@]}"
  check "$name: a plaintext client is refused" refused probe "$address" --plaintext
  check "$name: a client trusting another CA is refused" refused probe "$address" \
    --ca "$work/other/ca.crt" --cert "$certs/client.crt" --key "$certs/client.key"
done
check "matchmaking: a client without a certificate is served (players have none)" \
  probe "$matchmaking" --ca "$certs/ca.crt"
check "table: a client without a certificate is refused (mutual TLS)" refused probe "$table" --ca "$certs/ca.crt"
check "ratings: a client without a certificate is refused (mutual TLS)" refused probe "$ratings" --ca "$certs/ca.crt"
check "table: a client certificate of another CA is refused" refused probe "$table" \
  --ca "$certs/ca.crt" --cert "$work/other/stranger.crt" --key "$work/other/stranger.key"
check "table: a name its certificate does not hold is refused" refused probe "$table" \
  "${client[@]}" --server_name elsewhere.example

# The serial number of the certificate the table service shows a new connection.
table_serial() {
  openssl s_client -connect "$table" -servername localhost -alpn h2 \
    -cert "$certs/client.crt" -key "$certs/client.key" -CAfile "$certs/ca.crt" \
    </dev/null 2>/dev/null | openssl x509 -noout -serial 2>/dev/null
}
first_serial=$(table_serial)
check "the table service shows the certificate on disk" \
  [ "$first_serial" = "$(openssl x509 -in "$certs/table.crt" -noout -serial)" ]

# The people at the watched table think (--pace; a table played at full speed ends in
# about a second), so a game is still under way while the certificate is renewed.
MAMLAKA_DEMO_SERVICE_TOKEN=$token "$bin/trix-demo" --matchmaking="$matchmaking" \
  --ratings="$ratings" --pace=50ms --watch=true --log_dir="$work/demo" --timeout=4m \
  "${dial[@]}" --tls_client_cert="$certs/client.crt" --tls_client_key="$certs/client.key" \
  >"$work/demo.log" 2>&1 &
demo_pid=$!
stack_adopt trix-demo "$demo_pid"

# A game under way, then the table service's certificate renewed on disk.
psql_() { psql "$url" -XAtqc "$1"; }
under_way=0
for _ in $(seq 1 600); do
  if [ "$(psql_ "SELECT count(*) FROM games WHERE finished IS NULL AND log_length > 20" 2>/dev/null || echo 0)" -gt 0 ]; then
    under_way=1
    break
  fi
  kill -0 "$demo_pid" 2>/dev/null || break
  sleep 0.1
done
check "a game is under way through matchmaking" [ "$under_way" = 1 ]
DAYS=1 "$root/scripts/make-certs.sh" "$certs" table localhost 127.0.0.1
renewed=""
for _ in $(seq 1 50); do
  renewed=$(table_serial)
  [ -n "$renewed" ] && [ "$renewed" != "$first_serial" ] && break
  sleep 0.2
done
check "the renewed certificate is served to new connections without a restart" \
  [ "$renewed" = "$(openssl x509 -in "$certs/table.crt" -noout -serial)" ]
check "the renewal happened while a game was still under way" \
  [ "$(psql_ "SELECT count(*) FROM games WHERE finished IS NULL")" -gt 0 ]

demo_status=0
wait "$demo_pid" || demo_status=$?
demo_pid=""
unset 'pid[trix-demo]'
check "every player seated, every game played, consistent and rated over TLS (trix-demo exit 0)" \
  [ "$demo_status" -eq 0 ]
[ "$demo_status" -eq 0 ] || tail -n 40 "$work/demo.log"
check "three games made through matchmaking, all finished" \
  [ "$(psql_ "SELECT count(*) FROM games g WHERE finished IS NOT NULL AND
        EXISTS (SELECT 1 FROM mm_assignments a WHERE a.table_id = g.id)")" -eq 3 ]
check "no service logged an error" \
  refused grep -l '"level":"error"' "$work/table.log" "$work/ratings.log" "$work/matchmaking.log"

echo "tls_stack_test: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
