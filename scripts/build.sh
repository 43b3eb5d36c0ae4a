#!/usr/bin/env bash
# Configures and builds Mamlaka (Release) into build/, through ccache
# (scripts/lib/ccache.sh) when it is installed.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/lib/ccache.sh
. scripts/lib/ccache.sh
# shellcheck disable=SC2046  # ccache_args is a list of arguments
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE="${BUILD_TYPE:-Release}" $(ccache_args) >/dev/null
cmake --build build -j"$(nproc)"
