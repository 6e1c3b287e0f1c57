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
    python3-venv python3-pip python3-build python3-wheel python3-setuptools >/dev/null
  # The machine image ships Node.js 20 with npm; Debian's own npm conflicts with it, so only a machine
  # without npm gets Debian's.
  command -v npm >/dev/null || apt-get install -y -qq --no-install-recommends nodejs npm >/dev/null
fi

# tree-sitter-python 0.23.6 (ABI 14, which Debian's tree-sitter 0.20.7 runtime accepts), pinned by the lockfile.
if [ ! -f node_modules/tree-sitter-python/src/parser.c ]; then
  npm ci --ignore-scripts --no-audit --no-fund >/dev/null
fi

# simdjson's source, for the portable binary (Debian ships simdjson only as a shared C++ library):
# Debian's own source archive of the packaged version, checked against its pinned hash.
simdjson_tgz=simdjson_3.0.1.orig.tar.gz
simdjson_sha=156b1bc5eb0561b2bd166b46d191fd3d95a3e709cc63761477d3b7aec2b6e9ed
portable=ON
if [ ! -f third_party/simdjson-3.0.1/singleheader/simdjson.cpp ]; then
  mkdir -p third_party
  if curl -sSfL --retry 3 -o "third_party/$simdjson_tgz.part" \
      "http://deb.debian.org/debian/pool/main/s/simdjson/$simdjson_tgz" &&
      echo "$simdjson_sha  third_party/$simdjson_tgz.part" | sha256sum -c --quiet; then
    tar xzf "third_party/$simdjson_tgz.part" -C third_party simdjson-3.0.1/singleheader simdjson-3.0.1/LICENSE
  else
    echo "setup.sh: could not fetch $simdjson_tgz from deb.debian.org: building a non-portable binary" >&2
    portable=OFF
  fi
  rm -f "third_party/$simdjson_tgz.part"
fi

# tree-sitter's internal headers (lib/src), so that planlint reads syntax trees without the cursor
# API's per-node work (src/pyspark/ts_walk.c): Debian's source of the runtime it links, 0.20.7,
# checked against its pinned hash. Without them planlint walks trees with a TSTreeCursor (slower).
ts_txz=tree-sitter_0.20.7.orig.tar.xz
ts_sha=e8c0573be475dce5b024d83628a3eb47376923da701376e55a11804cc5d25487
if [ ! -f third_party/tree-sitter-0.20.7/lib/src/subtree.h ]; then
  mkdir -p third_party
  if curl -sSfL --retry 3 -o "third_party/$ts_txz.part" "http://deb.debian.org/debian/pool/main/t/tree-sitter/$ts_txz" &&
      echo "$ts_sha  third_party/$ts_txz.part" | sha256sum -c --quiet; then
    tar xJf "third_party/$ts_txz.part" -C third_party tree-sitter-0.20.7/lib/src tree-sitter-0.20.7/lib/include \
      tree-sitter-0.20.7/LICENSE
  else
    echo "setup.sh: could not fetch $ts_txz from deb.debian.org: syntax trees are read through the cursor API" >&2
  fi
  rm -f "third_party/$ts_txz.part"
fi

cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DPLANLINT_PORTABLE=$portable >/dev/null
cmake --build build -j"$(nproc)"
