# Sourced by scripts/build.sh and scripts/sanitize.sh: compile through ccache,
# in the user's usual ccache folder, so that a clone of the same commit in any
# other folder (a CI run, a second worktree) reuses the objects of this one.
#   base_dir   the checkout's root: paths under it are hashed as relative paths;
#   hash_dir   off: the working folder is not hashed, so the -g1 sanitizer builds
#              share too (their debug info then names the folder first built in);
#   max_size   holds the Release, ASan and TSan trees of a few commits.
# ccache_args prints the CMake arguments that put ccache in front of the compiler.
export CCACHE_BASEDIR
CCACHE_BASEDIR=$(pwd -P)
export CCACHE_NOHASHDIR=1
export CCACHE_MAXSIZE=${CCACHE_MAXSIZE:-8G}
export CCACHE_SLOPPINESS=${CCACHE_SLOPPINESS:-pch_defines,time_macros,include_file_mtime,include_file_ctime}

ccache_args() {
  if command -v ccache >/dev/null; then
    echo "-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache"
  fi
}
