#!/usr/bin/env bash
# Builds the planlint wheel (py3-none-manylinux_<glibc>_<arch>) from a portable build, offline, with
# Debian's python3-build, python3-wheel and python3-setuptools:
#   scripts/build-wheel.sh [BUILD_DIR [OUT_DIR]]      (defaults: build, build/dist)
# The wheel holds bin/planlint as a script (pip puts it on PATH), the libraries of lib/planlint as
# data under the environment's prefix (the binary's $ORIGIN/../lib/planlint run path), and the
# `planlint` Python package (planlint.check(df), python -m planlint). Prints the wheel's path.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:-$root/build}" && pwd)
out=${2:-$build/dist}
binary=$build/planlint
[ -x "$binary" ] || { echo "build-wheel.sh: no planlint binary in $build (run scripts/setup.sh)" >&2; exit 2; }
if readelf -d "$binary" | grep '(NEEDED)' | grep -q 'libstdc++'; then
  echo "build-wheel.sh: $binary is not a portable build (configure with -DPLANLINT_PORTABLE=ON)" >&2
  exit 2
fi
# Debian's Python, whose python3-build/-wheel/-setuptools are installed (a pyenv or venv python3 earlier
# on PATH may lack them); PLANLINT_PYTHON overrides.
python=${PLANLINT_PYTHON:-/usr/bin/python3}
[ -x "$python" ] || python=python3
for mod in build wheel setuptools; do
  "$python" -c "import $mod" 2>/dev/null ||
    { echo "build-wheel.sh: python3 module '$mod' missing (apt-get install python3-$mod)" >&2; exit 2; }
done
# The version the build was configured with (a cross build's binary does not run here).
version=$(sed -n 's/^CMAKE_PROJECT_VERSION:STATIC=//p' "$build/CMakeCache.txt" 2>/dev/null || true)
[ -n "$version" ] || version=$("$binary" --version | awk '{ print $2 }')
# The tag says what the binary needs: the glibc its build linked against (glibc-floor.txt, written by
# CMake), checked against the newest symbol version the binary and its libraries ask for.
shopt -s nullglob
needs=$(bash "$root/scripts/glibc-needs.sh" "$binary" "$build"/lib/planlint/*)
shopt -u nullglob
glibc=$needs
if [ -f "$build/glibc-floor.txt" ]; then
  glibc=$(cat "$build/glibc-floor.txt")
  if [ -n "$needs" ] && [ "$(printf '%s\n%s\n' "$needs" "$glibc" | sort -t. -k1,1n -k2,2n | tail -n 1)" != "$glibc" ]; then
    echo "build-wheel.sh: $binary asks for glibc $needs, newer than the $glibc it was linked against" >&2
    exit 2
  fi
fi
[ -n "$glibc" ] || { echo "build-wheel.sh: cannot tell which glibc $binary needs" >&2; exit 2; }
# The machine the binary is for (a cross build's is not this one's).
case $(readelf -h "$binary" | sed -n 's/^ *Machine: *//p') in
  *X86-64*) arch=x86_64 ;;
  AArch64) arch=aarch64 ;;
  *) echo "build-wheel.sh: $binary is for an architecture without a wheel here" >&2; exit 2 ;;
esac
platform="manylinux_${glibc%%.*}_${glibc#*.}_${arch}"

stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
cp -r "$root/python/." "$stage/"
rm -rf "$stage/build" "$stage"/*.egg-info "$stage/planlint/__pycache__"
cp "$root/README.md" "$stage/README.md"
mkdir -p "$stage/bin" "$stage/lib"
# This machine's strip reads only its own architecture: a cross build's binary needs the cross one.
strip_tool=strip
[ "$arch" = "$(uname -m)" ] || strip_tool=$arch-linux-gnu-strip
"$strip_tool" -o "$stage/bin/planlint" "$binary"
chmod 0755 "$stage/bin/planlint"
if [ -d "$build/lib/planlint" ]; then
  find "$build/lib/planlint" -maxdepth 1 -type f -exec cp {} "$stage/lib/" \;
fi
if [ -d "$build/licenses" ]; then
  mkdir -p "$stage/licenses" && cp "$build/licenses"/* "$stage/licenses/"
fi
mkdir -p "$out"
PLANLINT_WHEEL_VERSION=$version PLANLINT_WHEEL_PLATFORM=$platform \
  "$python" -m build --wheel --no-isolation --outdir "$stage/dist" "$stage" >"$stage/build.log" 2>&1 ||
  { cat "$stage/build.log" >&2; echo "build-wheel.sh: wheel build failed" >&2; exit 2; }
wheel=$(ls "$stage"/dist/*.whl)
# Replace any earlier wheel of this version atomically.
cp "$wheel" "$out/.$(basename "$wheel").tmp"
mv -f "$out/.$(basename "$wheel").tmp" "$out/$(basename "$wheel")"
echo "$out/$(basename "$wheel")"
