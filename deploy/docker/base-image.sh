#!/usr/bin/env bash
# Builds a local Debian 12 base image equivalent to debian:12-slim, for machines that
# reach the Debian mirror but no image registry: Debian's mmdebstrap makes a minimal
# bookworm root file system and `docker import` turns it into an image.
#
#   deploy/docker/base-image.sh                  # tags mamlaka/debian:12-slim
#   deploy/docker/base-image.sh my/debian:12     # another tag
#   docker build --build-arg BASE_IMAGE=mamlaka/debian:12-slim ...
#
# Settings (environment): MIRROR (the Debian mirror, default deb.debian.org),
# FORCE=1 rebuilds an image that already exists. Needs root (mmdebstrap's root mode)
# and a running dockerd.
set -euo pipefail

tag=${1:-mamlaka/debian:12-slim}
mirror=${MIRROR:-http://deb.debian.org/debian}

if [ "${FORCE:-0}" != 1 ] && docker image inspect "$tag" >/dev/null 2>&1; then
  echo "base-image: $tag exists (FORCE=1 rebuilds it)"
  exit 0
fi
command -v mmdebstrap >/dev/null || {
  echo "base-image: mmdebstrap is missing (apt-get install mmdebstrap)" >&2
  exit 1
}

# minbase: the required packages and apt, like the official slim image (which has
# no ca-certificates either); docs, man pages and locales are left out as there.
# --format=tar writes the root file system as a tar stream for docker import.
mmdebstrap --variant=minbase --format=tar \
  --dpkgopt='path-exclude=/usr/share/man/*' \
  --dpkgopt='path-exclude=/usr/share/doc/*' \
  --dpkgopt='path-include=/usr/share/doc/*/copyright' \
  --dpkgopt='path-exclude=/usr/share/locale/*' \
  --dpkgopt='path-exclude=/usr/share/info/*' \
  --customize-hook='rm -rf "$1"/var/lib/apt/lists/* "$1"/var/cache/apt/*.bin' \
  bookworm - \
  "deb $mirror bookworm main" \
  "deb $mirror bookworm-updates main" \
  "deb ${mirror%/debian}/debian-security bookworm-security main" |
  docker import \
    --change 'CMD ["bash"]' \
    --change 'ENV LANG=C.UTF-8' \
    --message "Debian 12 (bookworm) minbase by mmdebstrap" \
    - "$tag"
docker image ls "$tag"
