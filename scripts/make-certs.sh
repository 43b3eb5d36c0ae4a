#!/usr/bin/env bash
# A throwaway certificate authority and certificates signed by it, for TLS on a
# local or test deployment (the compose stack, the TLS tests). Production gets its
# certificates from cert-manager instead (deploy/k8s/prod/certificates.yaml).
#
#   scripts/make-certs.sh DIR NAME [DNS-NAME-OR-IP...]
#
# Makes DIR/ca.crt and DIR/ca.key once (a new CA when DIR has none), then
# DIR/NAME.crt and DIR/NAME.key: an ECDSA P-256 certificate for NAME and every
# further DNS name or IP address given, good for both server and client
# authentication (a service's certificate is also its client certificate for
# mutual TLS). Run again for the same NAME, it makes a new key and certificate
# (a renewal) and replaces the old files each at once. DAYS (default 30) is how
# long they are valid. The keys are readable by their owner only.
set -euo pipefail
if [ $# -lt 2 ]; then
  echo "usage: $0 DIR NAME [DNS-NAME-OR-IP...]" >&2
  exit 2
fi
dir=$1 name=$2
shift 2
days=${DAYS:-30}
mkdir -p "$dir"
umask 077  # the keys; the certificates are made readable below

if [ ! -f "$dir/ca.crt" ] || [ ! -f "$dir/ca.key" ]; then
  openssl req -x509 -new -nodes -newkey ec -pkeyopt ec_paramgen_curve:P-256 \
    -days "$days" -subj "/O=Mamlaka/CN=Mamlaka throwaway CA $(date -u +%Y%m%dT%H%M%S)" \
    -keyout "$dir/ca.key.tmp" -out "$dir/ca.crt.tmp" 2>/dev/null
  mv "$dir/ca.key.tmp" "$dir/ca.key"
  mv "$dir/ca.crt.tmp" "$dir/ca.crt"
  chmod 644 "$dir/ca.crt"
fi

sans="DNS:$name"
for san in "$@"; do
  if [[ $san =~ ^[0-9.]+$ || $san == *:* ]]; then sans+=",IP:$san"; else sans+=",DNS:$san"; fi
done
work=$(mktemp -d "$dir/.make-certs.XXXXXX")
trap 'rm -rf "$work"' EXIT
openssl req -new -nodes -newkey ec -pkeyopt ec_paramgen_curve:P-256 \
  -subj "/O=Mamlaka/CN=$name" -keyout "$work/key" -out "$work/csr" 2>/dev/null
printf '%s\n' "subjectAltName=$sans" "basicConstraints=CA:FALSE" \
  "keyUsage=digitalSignature,keyEncipherment" "extendedKeyUsage=serverAuth,clientAuth" \
  >"$work/ext"
openssl x509 -req -in "$work/csr" -CA "$dir/ca.crt" -CAkey "$dir/ca.key" \
  -CAcreateserial -CAserial "$dir/ca.srl" -days "$days" -extfile "$work/ext" \
  -out "$work/crt" 2>/dev/null
chmod 644 "$work/crt"
# The key first: a reader that sees the new certificate finds its key already.
mv "$work/key" "$dir/$name.key"
mv "$work/crt" "$dir/$name.crt"
