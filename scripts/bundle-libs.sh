#!/usr/bin/env bash
# Copies the shared libraries the portable planlint binary is linked with (those Debian ships without
# a static archive) into DIR, each under the name the binary asks for (its SONAME), so that the
# binary's $ORIGIN run path finds them in an unpacked archive or an installed wheel.
# usage: scripts/bundle-libs.sh BINARY DIR LIBRARY...
set -euo pipefail
binary=$1 dir=$2
shift 2
mkdir -p "$dir"
kept=()
# readelf reads the ELF files of every architecture (a cross build's too), objdump only this machine's.
needed=$(readelf -d "$binary" | sed -n 's/.*(NEEDED).*\[\(.*\)\]$/\1/p')
for lib in "$@"; do
  real=$(readlink -f "$lib")
  soname=$(readelf -d "$real" | sed -n 's/.*(SONAME).*\[\(.*\)\]$/\1/p')
  [ -n "$soname" ] || { echo "bundle-libs.sh: $real has no SONAME" >&2; exit 1; }
  if ! grep -qxF "$soname" <<<"$needed"; then
    continue  # linked statically after all, or not used by the binary
  fi
  # A temporary name and a rename: a parallel build or a running test never sees half a library.
  cp "$real" "$dir/.$soname.tmp"
  chmod 0644 "$dir/.$soname.tmp"
  mv -f "$dir/.$soname.tmp" "$dir/$soname"
  kept+=("$soname")
done
# Libraries of an earlier configuration that the binary no longer asks for.
for old in "$dir"/*; do
  [ -e "$old" ] || continue
  name=$(basename "$old")
  printf '%s\n' "${kept[@]}" | grep -qxF "$name" || rm -f "$old"
done
