#!/usr/bin/env bash
# Builds the planlint wheel (py3-none-manylinux_<glibc>_x86_64) from a portable build, offline, with
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
if objdump -p "$binary" | awk '$1 == "NEEDED"' | grep -q 'libstdc++'; then
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
version=$("$binary" --version | awk '{ print $2 }')
glibc=$(getconf GNU_LIBC_VERSION | awk '{ print $2 }')
arch=$(uname -m)
platform="manylinux_${glibc%%.*}_${glibc#*.}_${arch}"

stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
cp -r "$root/python/." "$stage/"
rm -rf "$stage/build" "$stage"/*.egg-info "$stage/planlint/__pycache__"
cp "$root/README.md" "$stage/README.md"
mkdir -p "$stage/bin" "$stage/lib"
strip -o "$stage/bin/planlint" "$binary"
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
