#!/usr/bin/env bash
# Makes a sysroot holding Debian 11's C library (glibc 2.31: libc6 and libc6-dev) for one Debian
# architecture, fetched with apt from the archive this machine already uses (scripts/debian-unpack.sh,
# the suite read as bullseye). The portable planlint binary links against it (PLANLINT_GLIBC_SYSROOT),
# so that it asks for nothing newer than glibc 2.31 and runs on Debian 11, Ubuntu 20.04 and everything
# later.
# usage: scripts/glibc-sysroot.sh ARCH DIR     (ARCH: amd64, arm64; DIR is made or replaced)
# Prints DIR on success; exits 1 (leaving nothing at DIR) when the archive cannot be reached.
set -euo pipefail
arch=$1 dir=$2
bash "$(dirname "$0")/debian-unpack.sh" bullseye "$arch" "$dir" libc6 libc6-dev linux-libc-dev || {
  echo "glibc-sysroot.sh: could not get Debian 11's libc6 and libc6-dev ($arch) with apt" >&2
  exit 1
}
version=$(sed -n 's/^#define[[:space:]]*__GLIBC_MINOR__[[:space:]]*\([0-9]*\).*/2.\1/p' "$dir/usr/include/features.h")
if [ "$version" != 2.31 ]; then
  rm -rf "$dir"
  echo "glibc-sysroot.sh: Debian 11's libc6-dev is glibc '$version', not 2.31" >&2
  exit 1
fi
echo "$dir"
