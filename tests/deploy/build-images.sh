#!/usr/bin/env bash
# Builds Mamlaka's container images (deploy/docker/Dockerfile) with BuildKit, tagged
# mamlaka/<program>:${TAG:-dev}, and prints each one's build time and size.
#
#   tests/deploy/build-images.sh                         # every program that exists
#   tests/deploy/build-images.sh table-service trix-bot  # some
#
# No registry is reachable here: the base image is built locally first
# (deploy/docker/base-image.sh) unless BASE_IMAGE names another one.
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
for target in "$@"; do
  start=$(date +%s)
  "$docker" build --network=host -f deploy/docker/Dockerfile \
    --build-arg BASE_IMAGE="$base" \
    --build-arg VERSION="$tag" \
    --build-arg REVISION="$(git rev-parse --short HEAD 2>/dev/null || echo unknown)" \
    --target "$target" -t "mamlaka/$target:$tag" .
  size=$("$docker" image inspect -f '{{.Size}}' "mamlaka/$target:$tag")
  echo "build-images: mamlaka/$target:$tag in $(($(date +%s) - start)) s," \
    "$((size / 1024 / 1024)) MiB"
done
