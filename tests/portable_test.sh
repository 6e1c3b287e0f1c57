#!/usr/bin/env bash
# The release archive of a portable build (PLANLINT_PORTABLE=ON): `cpack -G TGZ` makes
# planlint-VERSION-linux-x86_64.tar.gz; unpacked anywhere, its binary needs nothing outside glibc and
# the archive (ldd), carries an $ORIGIN run path, and runs from an empty directory with an empty
# environment: the version, a plan, a notebook (tree-sitter and the grammar linked in) and a zstd event
# log (the codecs linked in).
# usage: portable_test.sh BUILD_DIR SOURCE_DIR PORTABLE(ON|OFF)
set -uo pipefail
build=$(cd "$1" && pwd) src=$(cd "$2" && pwd) portable=$3
case "$portable" in
  ON | on | 1 | TRUE | true) ;;
  *) echo "skipped: not a portable build (configure with -DPLANLINT_PORTABLE=ON, as scripts/setup.sh does)"; exit 77 ;;
esac
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
. "$(dirname "$0")/lib.sh"
version=$("$build/planlint" --version | awk '{ print $2 }')

check "cpack -G TGZ builds the archive" 0 cpack -G TGZ -B "$work/pkg" --config "$build/CPackConfig.cmake"
archive="$work/pkg/planlint-$version-linux-x86_64.tar.gz"
check "archive named planlint-VERSION-linux-x86_64.tar.gz" 0 test -s "$archive"
mkdir -p "$work/unpacked" && tar xzf "$archive" -C "$work/unpacked"
# Moved after unpacking: nothing may depend on where cpack put it.
top="$work/moved/planlint"
mkdir -p "$work/moved" && mv "$work/unpacked/planlint-$version-linux-x86_64" "$top"
bin="$top/bin/planlint"
check "binary at bin/planlint" 0 test -x "$bin"
tar tzf "$archive" | sed 's|^[^/]*/||' | sort >"$work/listing"
check "man page at share/man/man1" 0 grep -qx "share/man/man1/planlint.1" "$work/listing"
check "README at share/doc/planlint" 0 grep -qx "share/doc/planlint/README.md" "$work/listing"
check "simdjson's licence in the archive" 0 grep -qx "share/doc/planlint/licenses/simdjson" "$work/listing"
check "tree-sitter's licence in the archive" 0 grep -qx "share/doc/planlint/licenses/libtree-sitter0" "$work/listing"

# What the binary asks for: glibc, or libraries inside the archive.
env -i "$(command -v ldd)" "$bin" >"$work/ldd" 2>&1
cat "$work/ldd"
lacks "ldd: nothing missing" ldd "not found"
awk -v top="$top" '
  /linux-vdso|ld-linux-x86-64\.so\.2/ { next }
  $1 ~ /^lib(c|m|pthread|dl|rt)\.so\.[0-9]+$/ { next }
  $2 == "=>" && index($3, top "/") == 1 { next }
  { print "outside glibc and the archive: " $0; bad = 1 }
  END { exit bad }' "$work/ldd"
check "ldd resolves only glibc and the archive" 0 test $? = 0
objdump -p "$bin" >"$work/dyn"
contains "run path \$ORIGIN/lib/planlint:\$ORIGIN/../lib/planlint" dyn 'RUNPATH              $ORIGIN/lib/planlint:$ORIGIN/../lib/planlint'
lacks "no libstdc++.so" dyn "libstdc++"
lacks "no libtree-sitter.so" dyn "libtree-sitter"
lacks "no libsimdjson.so" dyn "libsimdjson"
lacks "no libfmt.so" dyn "libfmt"
# The newest glibc symbol version the binary or a bundled library needs: the oldest glibc it runs on,
# which must be no newer than the one the build linked against (glibc-floor.txt: 2.31 with the
# sysroot scripts/setup.sh fetches) and than this machine's.
shopt -s nullglob
need=$(bash "$src/scripts/glibc-needs.sh" "$bin" "$top"/lib/planlint/*)
shopt -u nullglob
have=$(getconf GNU_LIBC_VERSION | awk '{ print $2 }')
floor=$have
[ -f "$build/glibc-floor.txt" ] && floor=$(cat "$build/glibc-floor.txt")
echo "needs glibc $need (linked against $floor, this machine: $have)"
check "a glibc symbol version was read" 0 test -n "$need"
newest() { printf '%s\n' "$@" | sort -t. -k1,1n -k2,2n -k3,3n | tail -n 1; }
check "needs no newer glibc than the one it was linked against" 0 test "$(newest "$need" "$floor")" = "$floor"
check "needs no newer glibc than this machine's" 0 test "$(newest "$need" "$have")" = "$have"

# Run from an empty directory with an empty environment.
mkdir "$work/empty" && cd "$work/empty" || exit 1
check "--version" 0 env -i "$bin" --version
contains "--version prints the version" out "planlint $version"
cp "$src/examples/plans/daily_revenue.txt" plan.txt
check "lints a plan (findings: exit 1)" 1 env -i "$bin" plan.txt
contains "plan finding" out "plan.txt:"
cp "$src/fixtures/source/notebooks/bad_pretty.ipynb" nb.ipynb
check "lints a notebook" 1 env -i "$bin" nb.ipynb
contains "notebook finding at its cell" out "nb.ipynb:cell 3:3:17"
cp "$src/examples/eventlogs/nightly_etl.zstd" log.zstd
check "diagnoses a zstd event log" 1 env -i "$bin" eventlog log.zstd
contains "event log read" out "log.zstd"
check "--format sarif" 1 env -i "$bin" --format sarif plan.txt
contains "SARIF written" out '"version": "2.1.0"'
rm -f plan.txt nb.ipynb log.zstd
# Neither the build tree's binary nor the archive's loads a library from the current folder: an empty
# entry in a run path means the current folder to the dynamic loader, and CMake used to end the build
# tree's run path with three ("$ORIGIN/lib/planlint:::"), so that planlint run inside a repository
# holding a libm.so.6 loaded it.
if command -v cc >/dev/null; then
  printf '%s\n' '#include <stdio.h>' '#include <stdlib.h>' \
    '__attribute__((constructor)) static void hijack(void) { puts("loaded from the current folder"); exit(3); }' >lib.c
  check "a library to plant" 0 cc -shared -fPIC -o libm.so.6 lib.c
  cp libm.so.6 libmimalloc.so.2 && cp libm.so.6 liblzf.so.1
  for b in "$build/planlint" "$bin"; do
    check "$(basename "$(dirname "$b")")/planlint ignores the libraries of the folder it runs in" 0 env -i "$b" --version
    lacks "no library loaded from the current folder" out "loaded from the current folder"
  done
  rm -f lib.c libm.so.6 libmimalloc.so.2 liblzf.so.1
fi
finish
