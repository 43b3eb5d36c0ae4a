#!/usr/bin/env bash
# Offline check of the Kubernetes manifests (CTest: deploy_k8s_validate): renders
# the dev and prod overlays with `kubectl kustomize` and validates every object with
# deploy/k8s/validate/validate.js (the Kubernetes schemas from npm's
# kubernetes-models and its operator packages: Prometheus Operator, cert-manager,
# CloudNativePG; plus our own rules). Then renders a deliberately broken overlay
# (tests/deploy/k8s-broken) and checks that the validator reports each of its
# mistakes, so a check that cannot fail would show here. Last, the alert rules as
# rendered go through `promtool check rules` and the unit tests of
# tests/deploy/alerts_test.yaml (`promtool test rules`), and every query of the
# Grafana dashboard through promtool's parser.
# Needs kubectl, node, promtool and the validator's npm packages
# (scripts/install-deps.sh).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
validator=$root/deploy/k8s/validate
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

if [ ! -d "$validator/node_modules/kubernetes-models" ] ||
   [ ! -d "$validator/node_modules/@kubernetes-models/cloudnative-pg" ]; then
  (cd "$validator" && npm ci --no-audit --no-fund --loglevel=error)
fi

passed=0
failed=0
pass() { echo "PASS $1"; passed=$((passed + 1)); }
fail() { echo "FAIL $1"; failed=$((failed + 1)); }

validate() {  # overlay-dir rendered-file [--external-secrets file]
  local dir=$1 file=$2
  shift 2
  kubectl kustomize "$dir" 2>"$file.err" >"$file" || { cat "$file.err"; return 1; }
  node "$validator/validate.js" --dockerfile "$root/deploy/docker/Dockerfile" "$@" "$file"
}

validate "$root/deploy/k8s/dev" "$out/dev.yaml" && pass dev || fail dev
validate "$root/deploy/k8s/prod" "$out/prod.yaml" \
  --external-secrets "$root/deploy/k8s/prod/external-secrets.yaml" && pass prod || fail prod

# The prod overlay without its list of external Secrets must fail: they are not
# generated there.
if validate "$root/deploy/k8s/prod" "$out/prod-bare.yaml" >"$out/prod-bare.txt"; then
  fail "prod without external secrets (accepted)"
elif grep -q 'refers to Secret mamlaka-jwks, which is not defined' "$out/prod-bare.txt" &&
    grep -q 'Cluster/mamlaka-db: backup credentials accessKeyId refer to Secret mamlaka-db-backup, which is not defined' "$out/prod-bare.txt"; then
  pass "prod without external secrets"
else
  cat "$out/prod-bare.txt"; fail "prod without external secrets"
fi

if validate "$root/tests/deploy/k8s-broken" "$out/broken.yaml" >"$out/broken.txt"; then
  cat "$out/broken.txt"
  fail "broken overlay (accepted)"
else
  cat "$out/broken.txt"
  expected=(
    'Service/leaderboard: schema: data/spec/ports/0/port must be integer'
    'Service/leaderboard: selects no pods'
    'Deployment/trix-bot: container trix-bot has no livenessProbe'
    'StatefulSet/table-service: container table-service does not set readOnlyRootFilesystem: true'
    'Deployment/matchmaking-service: container matchmaking-service has no memory limit'
    'refers to key credential-token of Secret mamlaka-matchmaking-credential'
    'image mamlaka/ratings:dev is not one the Dockerfile builds'
    'container ratings-service listens on 127.0.0.1, not on every interface'
    "container table-service serves TLS, which the kubelet's gRPC probes cannot speak"
    'container matchmaking-service env MAMLAKA_SEAT_TOKEN_KEY_FILE=/etc/mamlaka/nowhere/key is not in a volume it mounts'
    "container table-service env MAMLAKA_READ_DATABASE_URL does not verify the database's certificate (sslmode=verify-full)"
    'container matchmaking-service env MAMLAKA_READ_DATABASE_URL sslrootcert=/etc/mamlaka/nowhere/ca.crt is not in a volume it mounts'
    'Cluster/broken-db: schema: data/spec/instances must be integer'
    'Cluster/broken-db: backup credentials accessKeyId refer to Secret broken-db-backup, which is not defined'
    'Cluster/broken-db: backup credentials secretAccessKey refer to Secret broken-db-backup, which is not defined'
  )
  for e in "${expected[@]}"; do
    if grep -qF -- "$e" "$out/broken.txt"; then pass "broken: $e"; else fail "broken: $e (not reported)"; fi
  done
  if [ "$(grep -c ': ' "$out/broken.txt")" -ne $((${#expected[@]} + 1)) ]; then
    fail "broken: a problem reported that the fixture does not contain"
  fi
fi

node "$validator/extract-rules.js" <"$out/prod.yaml" >"$out/rules.yaml" &&
  promtool check rules "$out/rules.yaml" && pass "alert rules parse" || fail "alert rules parse"
node "$validator/dashboard-rules.js" "$root/deploy/k8s/monitoring/grafana-dashboard.json" \
  >"$out/dashboard-rules.yaml" &&
  promtool check rules "$out/dashboard-rules.yaml" && pass "dashboard queries parse" ||
  fail "dashboard queries parse"
cp "$root/tests/deploy/alerts_test.yaml" "$out/"
promtool test rules "$out/alerts_test.yaml" && pass "alert rule tests" || fail "alert rule tests"

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
