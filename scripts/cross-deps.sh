#!/usr/bin/env bash
# Unpacks Debian 12's packages of planlint's build dependencies for another architecture (headers,
# static archives, CMake and pkg-config files) into DIR, fetched with apt from the archive this machine
# already uses (its own suites, a private list directory; apt checks every file against the signed
# index). cmake/cross-aarch64.cmake points a cross build at DIR.
# usage: scripts/cross-deps.sh ARCH DIR      (ARCH: arm64; DIR is made or replaced)
set -euo pipefail
arch=$1 dir=$2
packages=(tao-pegtl-dev libfmt-dev librange-v3-dev libcli11-dev libtomlplusplus-dev nlohmann-json3-dev
  libsimdjson-dev libtree-sitter-dev liblz4-dev libzstd-dev libsnappy-dev liblzf-dev liblzf1 zlib1g-dev
  libxxhash-dev libfmt9 libsimdjson14 libtomlplusplus3 libtree-sitter0 liblz4-1 libzstd1 libsnappy1v5 zlib1g
  libxxhash0)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/parts" "$tmp/lists/partial" "$tmp/cache/archives/partial" "$tmp/debs" "$tmp/root"
[ -f /etc/apt/sources.list ] && grep '^deb ' /etc/apt/sources.list | sed "s/^deb \(\[[^]]*\] \)\?/deb [arch=$arch] /" >"$tmp/sources.list"
touch "$tmp/sources.list"
for f in /etc/apt/sources.list.d/*.sources; do
  [ -f "$f" ] || continue
  awk 'BEGIN { RS = ""; ORS = "\n\n" } /debian-archive-keyring/ { print }' "$f" >"$tmp/parts/$(basename "$f")"
done
opts=(-o "Dir::Etc::SourceList=$tmp/sources.list" -o "Dir::Etc::SourceParts=$tmp/parts"
  -o "Dir::State::Lists=$tmp/lists" -o "Dir::Cache=$tmp/cache" -o "Dir::State::status=/dev/null"
  -o "Debug::NoLocking=1" -o "APT::Architecture=$arch" -o "APT::Architectures=$arch"
  -o "APT::Sandbox::User=root")
apt-get "${opts[@]}" update -qq >/dev/null 2>&1 ||
  { echo "cross-deps.sh: could not read the package index for $arch with apt" >&2; exit 1; }
(cd "$tmp/debs" && apt-get "${opts[@]}" download -qq "${packages[@]/%/:$arch}" >/dev/null 2>&1) ||
  { echo "cross-deps.sh: could not download the $arch build dependencies with apt" >&2; exit 1; }
for deb in "$tmp"/debs/*.deb; do dpkg-deb -x "$deb" "$tmp/root"; done
# Absolute symbolic links made relative, so that they stay inside DIR.
find "$tmp/root" -type l -lname '/*' | while read -r link; do
  target=$(readlink "$link")
  ln -sfn "$(realpath -m --relative-to="$(dirname "$link")" "$tmp/root$target")" "$link"
done
mkdir -p "$(dirname "$dir")"
rm -rf "$dir.new"
mv "$tmp/root" "$dir.new"
rm -rf "$dir"
mv "$dir.new" "$dir"
echo "$dir"
