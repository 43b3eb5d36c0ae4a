#!/usr/bin/env bash
# Gathers built programs for the runtime images (deploy/docker/Dockerfile): for each
# PROGRAM found in BIN_DIR, OUT_DIR/PROGRAM (stripped) and OUT_DIR/PROGRAM.packages,
# the Debian packages of the shared libraries it loads (looked up by the library's
# multiarch path), never a -dev package. A program missing from BIN_DIR is skipped;
# a library no package owns is an error (the runtime image would not have it).
#
#   deploy/docker/collect-programs.sh BIN_DIR OUT_DIR PROGRAM...
#
# Runs in the Dockerfile's builder stage, and on a Debian 12 host for images of the
# programs scripts/build.sh built there (tests/deploy/build-images.sh, BINARIES=DIR).
# One dpkg query for all the libraries: one per library took minutes on a host with
# many packages installed.
set -euo pipefail

bin=$1 out=$2
shift 2
mkdir -p "$out"
libs=$(mktemp -d)
trap 'rm -rf "$libs"' EXIT
found=()
for p in "$@"; do
  [ -f "$bin/$p" ] || continue
  found+=("$p")
  strip -o "$out/$p" "$bin/$p"
  # multiarch-dir/library, as ldd resolves it (/lib or /usr/lib alike)
  ldd "$out/$p" | awk '/=> \//{n = split($3, a, "/"); print a[n - 1] "/" a[n]}' >"$libs/$p"
done
[ ${#found[@]} -gt 0 ] || exit 0

# "pkg[, pkg]: /path" per file; the key is the path's last two parts.
sort -u "${found[@]/#/$libs/}" | sed 's|^|*/|' | tr '\n' '\0' |
  xargs -0 dpkg-query -S 2>/dev/null | grep ': /' >"$libs/owners" || true
for p in "${found[@]}"; do
  awk -F': ' -v prog="$p" '
    NR == FNR {  # the packages without their architecture (libc6:amd64)
      gsub(/:[a-z0-9]+/, "", $1)
      n = split($2, a, "/"); owner[a[n - 1] "/" a[n]] = owner[a[n - 1] "/" a[n]] ", " $1; next
    }
    !($0 in owner) { print "collect-programs: " prog ": no package has " $0 >"/dev/stderr"; bad = 1; next }
    { print owner[$0] }
    END { exit bad }' "$libs/owners" "$libs/$p" |
    sed 's/[, ]/\n/g' | grep -v -e '^$' -e '-dev$' | sort -u >"$out/$p.packages"
done
