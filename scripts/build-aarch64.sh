#!/usr/bin/env bash
# Cross-builds the Linux aarch64 (arm64) release artefacts on an x86-64 Debian 12 machine: the
# portable binary linked against glibc 2.31, its archive, .deb and wheel, in BUILD_DIR
# (default build-aarch64). Run scripts/setup.sh first (the sources it fetches are shared). As root
# it installs Debian's cross compiler and qemu-user with apt; the arm64 build dependencies and
# glibc 2.31 come from Debian's archive through apt (scripts/cross-deps.sh, scripts/glibc-sysroot.sh).
# usage: scripts/build-aarch64.sh [BUILD_DIR]      Prints the artefacts' paths.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build-aarch64}
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends g++-aarch64-linux-gnu qemu-user \
    >/dev/null
fi
for tool in aarch64-linux-gnu-g++ qemu-aarch64; do
  command -v "$tool" >/dev/null || { echo "build-aarch64.sh: $tool is missing (apt-get install g++-aarch64-linux-gnu qemu-user)" >&2; exit 2; }
done
[ -f third_party/simdjson-3.0.1/singleheader/simdjson.cpp ] ||
  { echo "build-aarch64.sh: run scripts/setup.sh first (it fetches the sources this build shares)" >&2; exit 2; }
[ -f third_party/deps-arm64/usr/include/tree_sitter/api.h ] || bash scripts/cross-deps.sh arm64 third_party/deps-arm64 >/dev/null
[ -f third_party/glibc-2.31-arm64/usr/lib/aarch64-linux-gnu/libc_nonshared.a ] ||
  bash scripts/glibc-sysroot.sh arm64 third_party/glibc-2.31-arm64 >/dev/null
# The same optimisation as the x86-64 build (-O2), without debug information: the packages are
# stripped, and it compiles faster.
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O2 -DNDEBUG" \
  -DCMAKE_C_FLAGS_RELWITHDEBINFO="-O2 -DNDEBUG" -DCMAKE_TOOLCHAIN_FILE=cmake/cross-aarch64.cmake \
  -DPLANLINT_CROSS_DEPS="$PWD/third_party/deps-arm64" -DPLANLINT_PORTABLE=ON \
  -DPLANLINT_GLIBC_SYSROOT="$PWD/third_party/glibc-2.31-arm64" >/dev/null
cmake --build "$build" -j"$(nproc)" >/dev/null
(cd "$build" && cpack -G "DEB;TGZ" >/dev/null)
bash scripts/build-wheel.sh "$build" "$build/dist" >/dev/null
ls "$build"/planlint_*_arm64.deb "$build"/planlint-*-linux-aarch64.tar.gz "$build"/dist/planlint-*_aarch64.whl
