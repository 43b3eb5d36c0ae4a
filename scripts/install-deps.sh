#!/usr/bin/env bash
# Installs the Debian 12 packages Mamlaka needs to build, test and run locally.
# Safe to run again: it installs only what is missing. Needs root (or sudo).
set -euo pipefail

packages=(
  build-essential cmake ninja-build ccache pkg-config git python3 procps
  lld  # the linker (CMakeLists.txt: much less CPU than GNU ld; without it, GNU ld)
  libabsl-dev
  libgrpc++-dev protobuf-compiler-grpc libprotobuf-dev protobuf-compiler
  libpqxx-dev postgresql-15
  libgtest-dev libgmock-dev libbenchmark-dev
  nlohmann-json3-dev libspdlog-dev prometheus-cpp-dev libssl-dev libgoogle-perftools-dev
  python3-grpcio python3-protobuf postgresql-client
  openssl  # the TLS test makes its certificates with the openssl command
  libjwt-dev
  tmux  # trix-play's end-to-end test drives the terminal client in tmux
  # scripts/pg-ha.sh: a replicated PostgreSQL (Patroni over etcd) for the failover tests
  patroni etcd-server etcd-client curl iproute2
)

# The deployment checks (tests/deploy/k8s_validate.sh) render the manifests with
# kubectl, validate them with node and test the alert rules with promtool (from
# Debian's prometheus), and the stack test runs Docker; container image builds skip
# them (MAMLAKA_DEPS=build).
if [ "${MAMLAKA_DEPS:-all}" != build ]; then
  command -v kubectl >/dev/null || packages+=(kubernetes-client)
  command -v promtool >/dev/null || packages+=(prometheus)
  command -v node >/dev/null || packages+=(nodejs)
  command -v npm >/dev/null || packages+=(npm)
  # The container stack test (tests/deploy/stack_test.sh): Debian's Docker engine
  # and compose, and mmdebstrap for the local base image (deploy/docker/base-image.sh).
  packages+=(docker.io docker-compose mmdebstrap)
fi

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "Installing: ${missing[*]}"
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  export DEBIAN_FRONTEND=noninteractive
  $sudo apt-get update -q
  $sudo apt-get install -y -q --no-install-recommends "${missing[@]}"
fi

# The manifest validator's npm packages, pinned by its package-lock.json.
if [ "${MAMLAKA_DEPS:-all}" != build ]; then
  validate_dir="$(dirname "$0")/../deploy/k8s/validate"
  if [ ! -f "$validate_dir/node_modules/.package-lock.json" ] ||
    ! cmp -s "$validate_dir/package-lock.json" "$validate_dir/node_modules/.package-lock.json.src"; then
    (cd "$validate_dir" && npm ci --no-audit --no-fund --loglevel=error &&
      cp package-lock.json node_modules/.package-lock.json.src)
  fi
fi
