#!/usr/bin/env bash
# The compose stack's certificates (deploy/compose.yaml's `certs` service): a
# throwaway CA and one certificate per service, made by scripts/make-certs.sh into
# /certs (a volume the services mount read-only) at the stack's first start, and
# made again, with a new CA, once they have less than a day left.
#   ca.crt                  the CA every service and client trusts
#   table.crt/.key          table-1 and table-2 (also their client certificate)
#   ratings.crt/.key        ratings
#   matchmaking.crt/.key    matchmaking (also its client certificate for mutual TLS)
#   client.crt/.key         the bots and the demos: a client certificate
set -euo pipefail
dir=${CERTS_DIR:-/certs}
make=${MAKE_CERTS:-/usr/local/bin/make-certs.sh}
if [ -f "$dir/ca.crt" ] && [ -f "$dir/client.crt" ] &&
   openssl x509 -checkend 86400 -noout -in "$dir/ca.crt" >/dev/null &&
   openssl x509 -checkend 86400 -noout -in "$dir/client.crt" >/dev/null; then
  echo "compose-certs: the certificates in $dir are still good"
  exit 0
fi
rm -f "$dir"/*.crt "$dir"/*.key "$dir"/ca.srl
"$make" "$dir" table table-1 table-2 localhost 127.0.0.1
"$make" "$dir" ratings localhost 127.0.0.1
"$make" "$dir" matchmaking localhost 127.0.0.1
"$make" "$dir" client
echo "compose-certs: a new CA and certificates in $dir"
