#!/usr/bin/env bash
# Builds Mamlaka's container images (deploy/docker/Dockerfile) with BuildKit, tagged
# mamlaka/<program>:${TAG:-dev}, and prints each one's build time and size.
#
#   tests/deploy/build-images.sh                         # every program that exists
#   tests/deploy/build-images.sh table-service trix-bot  # some
#
# No registry is reachable here: the base image is built locally first
# (deploy/docker/base-image.sh) unless BASE_IMAGE names another one.
#
# BINARIES=DIR (build/bin, say) packs the programs already built in DIR on this
# Debian 12 machine (scripts/build.sh) instead of building them in the Dockerfile's
# builder: seconds instead of a compile, for the stack test in scripts/test.sh. The
# images are the same but for where their programs were compiled.
set -euo pipefail
cd "$(dirname "$0")/../.."

tag=${TAG:-dev}
base=${BASE_IMAGE:-mamlaka/debian:12-slim}
# Debian's docker.io client has BuildKit built in; a newer client needs buildx.
docker=${DOCKER:-$(command -v /usr/bin/docker || command -v docker)}
export DOCKER_BUILDKIT=1

if [ "$base" = mamlaka/debian:12-slim ]; then deploy/docker/base-image.sh "$base"; fi

if [ $# -eq 0 ]; then
  set -- table-service migrate trix-bot certs
  for p in matchmaking-service ratings-service; do
    [ -d "services/${p%-service}" ] && set -- "$@" "$p"
  done
fi
# replaced IMAGE OLD-ID: removes the image IMAGE replaced, unless it is still in use,
# so that rebuilds do not pile up.
replaced() {
  local new
  new=$("$docker" image inspect -f '{{.Id}}' "$1")
  if [ -n "$2" ] && [ "$2" != "$new" ]; then "$docker" image rm "$2" >/dev/null 2>&1 || true; fi
}

binaries=()
if [ -n "${BINARIES:-}" ]; then
  # The Dockerfile's program list; an image of their /out, as the builder lays it out.
  programs=$(sed -nE 's/^ARG PROGRAMS="(.*)"/\1/p' deploy/docker/Dockerfile)
  out=$(mktemp -d /tmp/mamlaka-programs.XXXXXX)
  trap 'rm -rf "$out"' EXIT
  start=$(date +%s)
  # shellcheck disable=SC2086  # a list of programs
  deploy/docker/collect-programs.sh "$BINARIES" "$out" $programs
  old=$("$docker" image inspect -f '{{.Id}}' "mamlaka/programs:$tag" 2>/dev/null || true)
  printf 'FROM scratch\nCOPY . /out/\n' |
    "$docker" build -q -f - -t "mamlaka/programs:$tag" "$out" >/dev/null
  replaced "mamlaka/programs:$tag" "$old"
  echo "build-images: mamlaka/programs:$tag from $BINARIES in $(($(date +%s) - start)) s"
  binaries=(--build-arg BINARIES="mamlaka/programs:$tag")
fi

for target in "$@"; do
  start=$(date +%s)
  old=$("$docker" image inspect -f '{{.Id}}' "mamlaka/$target:$tag" 2>/dev/null || true)
  "$docker" build --network=host -f deploy/docker/Dockerfile \
    --build-arg BASE_IMAGE="$base" "${binaries[@]}" \
    --build-arg VERSION="$tag" \
    --build-arg REVISION="$(git rev-parse --short HEAD 2>/dev/null || echo unknown)" \
    --target "$target" -t "mamlaka/$target:$tag" .
  size=$("$docker" image inspect -f '{{.Size}}' "mamlaka/$target:$tag")
  replaced "mamlaka/$target:$tag" "$old"
  echo "build-images: mamlaka/$target:$tag in $(($(date +%s) - start)) s," \
    "$((size / 1024 / 1024)) MiB"
done
