#!/usr/bin/env bash
# Installs planlint's build dependencies on Debian 12 (as root), fetches the pinned tree-sitter-python
# grammar from the npm registry, then configures and builds into build/.
set -euo pipefail
cd "$(dirname "$0")/.."

if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends \
    cmake ninja-build pkg-config g++ clang libclang-rt-14-dev tao-pegtl-dev libtree-sitter-dev libfmt-dev \
    librange-v3-dev catch2 libcli11-dev libtomlplusplus-dev nlohmann-json3-dev libsimdjson-dev libbenchmark-dev \
    xz-utils liblz4-dev libzstd-dev libsnappy-dev liblzf-dev zlib1g-dev libxxhash-dev libmimalloc-dev zstd \
    pre-commit flake8 clang-format clang-tidy git ca-certificates curl graphviz chromium \
    python3-venv python3-pip python3-build python3-wheel python3-setuptools python3-jsonschema >/dev/null
  # The machine image ships Node.js 20 with npm; Debian's own npm conflicts with it, so only a machine
  # without npm gets Debian's.
  command -v npm >/dev/null || apt-get install -y -qq --no-install-recommends nodejs npm >/dev/null
fi

# tree-sitter-python 0.23.6 (ABI 14, which Debian's tree-sitter 0.20.7 runtime accepts), pinned by the lockfile.
if [ ! -f node_modules/tree-sitter-python/src/parser.c ]; then
  npm ci --ignore-scripts --no-audit --no-fund >/dev/null
fi

# Debian's source packages of two libraries planlint builds against, fetched with apt from the
# archive this machine already uses (its deb lines, read as deb-src, into a private list directory),
# each checked against a pinned hash. Prints the directory holding the downloaded files.
debian_sources() {
  local tmp; tmp=$(mktemp -d)
  mkdir -p "$tmp/parts" "$tmp/lists/partial" "$tmp/files"
  [ -f /etc/apt/sources.list ] && sed -n 's/^deb /deb-src /p' /etc/apt/sources.list >"$tmp/sources.list"
  touch "$tmp/sources.list"
  for f in /etc/apt/sources.list.d/*.sources; do
    [ -f "$f" ] || continue
    # Only the stanzas signed by Debian's archive key: other vendors' repositories have no sources.
    awk 'BEGIN { RS = ""; ORS = "\n\n" } /debian-archive-keyring/ { sub(/Types: deb\n/, "Types: deb-src\n"); print }' \
      "$f" >"$tmp/parts/$(basename "$f")"
  done
  local opts=(-o "Dir::Etc::SourceList=$tmp/sources.list" -o "Dir::Etc::SourceParts=$tmp/parts"
    -o "Dir::State::Lists=$tmp/lists" -o "Debug::NoLocking=1")
  apt-get "${opts[@]}" update -qq >/dev/null 2>&1 || true
  (cd "$tmp/files" && apt-get "${opts[@]}" source --download-only -qq "$@" >/dev/null 2>&1) || true
  echo "$tmp/files"
}
need_simdjson=0 need_ts=0 need_mimalloc=0
[ -f third_party/simdjson-3.0.1/singleheader/simdjson.cpp ] || need_simdjson=1
[ -f third_party/tree-sitter-0.20.7/lib/src/subtree.h ] || need_ts=1
[ -f "third_party/mimalloc-2.0.9+ds/src/static.c" ] || need_mimalloc=1
src=""
if [ $need_simdjson = 1 ] || [ $need_ts = 1 ] || [ $need_mimalloc = 1 ]; then
  mkdir -p third_party
  src=$(debian_sources simdjson=3.0.1-1 tree-sitter=0.20.7-1 mimalloc=2.0.9+ds-2)
fi

# simdjson's source, for the portable binary (Debian ships simdjson only as a shared C++ library).
simdjson_tgz=simdjson_3.0.1.orig.tar.gz
simdjson_sha=156b1bc5eb0561b2bd166b46d191fd3d95a3e709cc63761477d3b7aec2b6e9ed
portable=ON
if [ $need_simdjson = 1 ]; then
  if [ -f "$src/$simdjson_tgz" ] && echo "$simdjson_sha  $src/$simdjson_tgz" | sha256sum -c --quiet; then
    tar xzf "$src/$simdjson_tgz" -C third_party simdjson-3.0.1/singleheader simdjson-3.0.1/LICENSE
  else
    echo "setup.sh: could not get Debian's source of simdjson 3.0.1 with apt: building a non-portable binary" >&2
    portable=OFF
  fi
fi

# tree-sitter's internal headers (lib/src), so that planlint reads syntax trees without the cursor
# API's per-node work (src/pyspark/ts_walk.c): Debian's source of the runtime it links, 0.20.7.
# Without them planlint walks trees with a TSTreeCursor (slower).
ts_txz=tree-sitter_0.20.7.orig.tar.xz
ts_sha=e8c0573be475dce5b024d83628a3eb47376923da701376e55a11804cc5d25487
if [ $need_ts = 1 ]; then
  if [ -f "$src/$ts_txz" ] && echo "$ts_sha  $src/$ts_txz" | sha256sum -c --quiet; then
    tar xJf "$src/$ts_txz" -C third_party tree-sitter-0.20.7/lib/src tree-sitter-0.20.7/lib/include \
      tree-sitter-0.20.7/LICENSE
  else
    echo "setup.sh: could not get Debian's source of tree-sitter 0.20.7 with apt: syntax trees are read through the cursor API" >&2
  fi
fi
# mimalloc's source, compiled into the portable binary (Debian's libmimalloc.so.2 needs glibc 2.34).
# Without it the portable binary bundles Debian's shared mimalloc, and needs that glibc.
mi_txz=mimalloc_2.0.9+ds.orig.tar.xz
mi_sha=cbc9d207ff105ad1f0cb739c378076143a6452b8d0624309cea0abfb040e972b
if [ $need_mimalloc = 1 ]; then
  if [ -f "$src/$mi_txz" ] && echo "$mi_sha  $src/$mi_txz" | sha256sum -c --quiet; then
    tar xJf "$src/$mi_txz" -C third_party "mimalloc-2.0.9+ds/src" "mimalloc-2.0.9+ds/include" "mimalloc-2.0.9+ds/LICENSE"
  else
    echo "setup.sh: could not get Debian's source of mimalloc 2.0.9 with apt: the portable binary uses glibc's allocator" >&2
  fi
fi
[ -n "$src" ] && rm -rf "$(dirname "$src")"

# Debian 11's C library (glibc 2.31), for the portable binary to link against: it then runs on any
# Linux of this architecture with glibc 2.31 or newer (Debian 11, Ubuntu 20.04, every Databricks LTS
# runtime, Amazon Linux 2023). Without it (no archive in reach) it needs this machine's glibc.
sysroot=""
case "$(dpkg --print-architecture 2>/dev/null || true)" in
  amd64 | arm64)
    arch=$(dpkg --print-architecture)
    if [ -f "third_party/glibc-2.31-$arch/usr/lib/$(gcc -print-multiarch)/libc_nonshared.a" ] ||
      bash scripts/glibc-sysroot.sh "$arch" "third_party/glibc-2.31-$arch" >/dev/null; then
      sysroot=$PWD/third_party/glibc-2.31-$arch
    else
      echo "setup.sh: building against this machine's glibc (the binary needs it or newer)" >&2
    fi
    ;;
esac
[ $portable = ON ] || sysroot=""

cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DPLANLINT_PORTABLE=$portable \
  -DPLANLINT_GLIBC_SYSROOT="$sysroot" >/dev/null
cmake --build build -j"$(nproc)"
