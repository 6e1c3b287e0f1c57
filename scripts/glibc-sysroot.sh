#!/usr/bin/env bash
# Makes a sysroot holding Debian 11's C library (glibc 2.31: libc6 and libc6-dev) for one Debian
# architecture, fetched with apt from the archive this machine already uses (its deb lines, with the
# suite read as bullseye, into a private list directory; apt checks every file against the archive's
# signed index). The portable planlint binary links against it (PLANLINT_GLIBC_SYSROOT), so that it
# asks for nothing newer than glibc 2.31 and runs on Debian 11, Ubuntu 20.04 and everything later.
# usage: scripts/glibc-sysroot.sh ARCH DIR     (ARCH: amd64, arm64; DIR is made or replaced)
# Prints DIR on success; exits 1 (leaving nothing at DIR) when the archive cannot be reached.
set -euo pipefail
arch=$1 dir=$2
suite=bullseye
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/parts" "$tmp/lists/partial" "$tmp/cache/archives/partial" "$tmp/debs" "$tmp/root"
[ -f /etc/apt/sources.list ] &&
  sed -n "s/^deb \(\[[^]]*\] \)\?\([^ ]*\) [a-z]* \(.*\)$/deb [arch=$arch] \2 $suite main/p" /etc/apt/sources.list |
  grep -v -- '-security' | sort -u >"$tmp/sources.list"
touch "$tmp/sources.list"
for f in /etc/apt/sources.list.d/*.sources; do
  [ -f "$f" ] || continue
  # Debian's own stanzas (signed by its archive key), not the security archive (another suite name).
  awk -v suite="$suite" 'BEGIN { RS = ""; ORS = "\n\n" }
    /debian-archive-keyring/ && !/-security/ { sub(/Suites: [^\n]*/, "Suites: " suite); sub(/Components: [^\n]*/, "Components: main"); print }' \
    "$f" >"$tmp/parts/$(basename "$f")"
done
opts=(-o "Dir::Etc::SourceList=$tmp/sources.list" -o "Dir::Etc::SourceParts=$tmp/parts"
  -o "Dir::State::Lists=$tmp/lists" -o "Dir::Cache=$tmp/cache" -o "Dir::State::status=/dev/null"
  -o "Debug::NoLocking=1" -o "APT::Architecture=$arch" -o "APT::Architectures=$arch"
  -o "APT::Sandbox::User=root")
if ! apt-get "${opts[@]}" update -qq >/dev/null 2>&1; then
  echo "glibc-sysroot.sh: could not read Debian $suite's package index with apt" >&2
  exit 1
fi
if ! (cd "$tmp/debs" && apt-get "${opts[@]}" download -qq "libc6:$arch" "libc6-dev:$arch" "linux-libc-dev:$arch" \
  >/dev/null 2>&1); then
  echo "glibc-sysroot.sh: could not download Debian $suite's libc6 and libc6-dev ($arch) with apt" >&2
  exit 1
fi
for deb in "$tmp"/debs/*.deb; do dpkg-deb -x "$deb" "$tmp/root"; done
# The packages' absolute symbolic links (/lib64/ld-linux-x86-64.so.2 -> /lib/x86_64-linux-gnu/ld-2.31.so)
# would point into this machine's own C library: made relative, they stay inside the sysroot.
find "$tmp/root" -type l -lname '/*' | while read -r link; do
  target=$(readlink "$link")
  ln -sfn "$(realpath -m --relative-to="$(dirname "$link")" "$tmp/root$target")" "$link"
done
version=$(sed -n 's/^#define[[:space:]]*__GLIBC_MINOR__[[:space:]]*\([0-9]*\).*/2.\1/p' "$tmp/root/usr/include/features.h")
[ "$version" = 2.31 ] || { echo "glibc-sysroot.sh: Debian $suite's libc6-dev is glibc '$version', not 2.31" >&2; exit 1; }
# Replace DIR in one step: a build that reads it never sees half a sysroot.
mkdir -p "$(dirname "$dir")"
rm -rf "$dir.new"
mv "$tmp/root" "$dir.new"
rm -rf "$dir"
mv "$dir.new" "$dir"
echo "$dir"
