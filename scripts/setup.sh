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
    liblz4-dev libzstd-dev libsnappy-dev liblzf-dev zlib1g-dev libxxhash-dev libmimalloc-dev zstd \
    pre-commit flake8 clang-format clang-tidy git ca-certificates graphviz chromium >/dev/null
  # The machine image ships Node.js 20 with npm; Debian's own npm conflicts with it, so only a machine
  # without npm gets Debian's.
  command -v npm >/dev/null || apt-get install -y -qq --no-install-recommends nodejs npm >/dev/null
fi

# tree-sitter-python 0.23.6 (ABI 14, which Debian's tree-sitter 0.20.7 runtime accepts), pinned by the lockfile.
if [ ! -f node_modules/tree-sitter-python/src/parser.c ]; then
  npm ci --ignore-scripts --no-audit --no-fund >/dev/null
fi

cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build -j"$(nproc)"
