#!/bin/sh
# Builds the side-by-side playout benchmarks of
# docs/experiments/2026-12-01-engine-hardware-bit-operations.md ("Side by side with
# public Hearts engines") against source trees checked out by hand; nothing
# here is part of the build or of CI.
#
#   engine/bench/compare/build.sh OPEN_SPIEL_DIR XINXIN_HEARTS_DIR OUT_DIR
#   OUT_DIR/openspiel-hearts-bench --benchmark_min_time=1
#   OUT_DIR/xinxin-hearts-bench --benchmark_min_time=1
#
# OPEN_SPIEL_DIR is a checkout of github.com/google-deepmind/open_spiel, built
# against Debian's Abseil (older than OpenSpiel's): absl::optional becomes
# std::optional and MutexLock takes a pointer, in a copy under OUT_DIR.
# XINXIN_HEARTS_DIR is github.com/nathansttt/hearts (the engine OpenSpiel's xinxin
# bot uses).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
os_src=$1; xx_src=$2; out=$3
mkdir -p "$out/os" "$out/xx/obj" "$out/os/obj"
cp -r "$os_src/open_spiel" "$out/os/"
cd "$out/os"
ln -sfn /usr/include open_spiel/abseil-cpp
mkdir -p open_spiel/json && ln -sfn /usr/include open_spiel/json/include
files="open_spiel/spiel.h open_spiel/spiel.cc open_spiel/spiel_utils.h open_spiel/spiel_utils.cc
  open_spiel/observer.h open_spiel/observer.cc open_spiel/game_parameters.h
  open_spiel/game_parameters.cc open_spiel/games/hearts/hearts.h
  open_spiel/games/hearts/hearts.cc open_spiel/utils/usage_logging.cc open_spiel/utils/status.h"
sed -i -E 's/absl::optional/std::optional/g; s/absl::nullopt/std::nullopt/g;
  s/absl::make_optional/std::make_optional/g;
  s/absl::MutexLock ([a-z_]+)\(([a-z_]+)\)/absl::MutexLock \1(\&\2)/g;
  s|#include "open_spiel/abseil-cpp/absl/types/optional.h"|#include <optional>|' $files
for f in open_spiel/spiel.cc open_spiel/spiel_utils.cc open_spiel/game_parameters.cc \
         open_spiel/observer.cc open_spiel/utils/usage_logging.cc open_spiel/utils/status.cc \
         open_spiel/games/hearts/hearts.cc "$here/openspiel_hearts_bench.cc"; do
  g++ -O3 -std=c++17 -DNDEBUG -I. -c "$f" -o "obj/$(basename "$f" .cc).o"
done
g++ -o "$out/openspiel-hearts-bench" obj/*.o -lbenchmark -lpthread \
  $(pkg-config --libs absl_strings absl_str_format absl_synchronization absl_flat_hash_map \
    absl_random_random absl_time)

cd "$out/xx"
for f in "$xx_src"/*.cpp "$here/xinxin_hearts_bench.cc"; do
  case "$f" in */main.cpp) continue ;; esac
  g++ -O3 -std=c++17 -DNDEBUG -w -I"$xx_src" -c "$f" -o "obj/$(basename "${f%.*}").o"
done
g++ -o "$out/xinxin-hearts-bench" obj/*.o -lbenchmark -lpthread
