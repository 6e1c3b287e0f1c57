#!/usr/bin/env bash
# Unpacks Debian 12's packages of planlint's build dependencies for another architecture (headers,
# static archives, CMake and pkg-config files) into DIR, fetched with apt from the archive this machine
# already uses (scripts/debian-unpack.sh, the machine's own suites). cmake/cross-aarch64.cmake points
# a cross build at DIR.
# usage: scripts/cross-deps.sh ARCH DIR      (ARCH: arm64; DIR is made or replaced)
set -euo pipefail
arch=$1 dir=$2
# The -dev packages, and the runtime packages whose shared objects their CMake files name.
packages=(tao-pegtl-dev libfmt-dev librange-v3-dev libcli11-dev libtomlplusplus-dev nlohmann-json3-dev
  libsimdjson-dev libtree-sitter-dev liblz4-dev libzstd-dev libsnappy-dev liblzf-dev liblzf1 zlib1g-dev
  libxxhash-dev libfmt9 libsimdjson14 libtomlplusplus3 libtree-sitter0 liblz4-1 libzstd1 libsnappy1v5 zlib1g
  libxxhash0)
bash "$(dirname "$0")/debian-unpack.sh" - "$arch" "$dir" "${packages[@]}" || {
  echo "cross-deps.sh: could not get the $arch build dependencies with apt" >&2
  exit 1
}
echo "$dir"
