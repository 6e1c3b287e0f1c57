#!/usr/bin/env bash
# The release artefacts on the oldest system they claim: a Debian 11 userland (glibc 2.31), made with
# debootstrap from the archive this machine uses. From an empty folder inside it (a chroot for this
# machine's architecture; qemu-user for another's, with the userland as its library prefix), the
# archive's binary and the wheel's (installed with pip into a venv of Debian 11's Python) print their
# version, lint a plan, a notebook and an event log, and write SARIF; planlint.check() runs in Python.
# Needs root, debootstrap and the archive; skips (77) with a message otherwise. .ci/run runs it.
# usage: older_glibc_test.sh SOURCE_DIR ARCHIVE [WHEEL]      (ARCHIVE: planlint-*-linux-ARCH.tar.gz)
#   PLANLINT_OLD_ROOT=DIR reuses (or makes) the userland there instead of a temporary one.
set -uo pipefail
src=$(cd "$1" && pwd) archive=$(realpath "$2") wheel=${3:+$(realpath "$3")}
[ "$(id -u)" = 0 ] || { echo "skipped: needs root (chroot, debootstrap)"; exit 77; }
command -v debootstrap >/dev/null || { echo "skipped: debootstrap is not installed (apt-get install debootstrap)"; exit 77; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
. "$(dirname "$0")/lib.sh"

case "$(basename "$archive")" in
  *-linux-x86_64.tar.gz) debarch=amd64 machine=x86_64 ;;
  *-linux-aarch64.tar.gz) debarch=arm64 machine=aarch64 ;;
  *) echo "FAIL: $archive is not a planlint-VERSION-linux-ARCH.tar.gz"; exit 1 ;;
esac
native=1
[ "$machine" = "$(uname -m)" ] || native=0
if [ $native = 0 ] && ! command -v "qemu-$machine" >/dev/null; then
  echo "skipped: qemu-$machine is not installed (apt-get install qemu-user)"; exit 77
fi
root=${PLANLINT_OLD_ROOT:-$work/bullseye-$debarch}
if [ ! -x "$root/usr/bin/ldd" ]; then
  # Another architecture's userland is only unpacked (--foreign): nothing of it runs here but planlint,
  # through qemu, and python3-venv's second stage would need it to run.
  extra=(--include=python3-venv)
  [ $native = 1 ] || extra=(--foreign)
  if ! debootstrap --variant=minbase --arch="$debarch" "${extra[@]}" bullseye "$root" >"$work/debootstrap.log" 2>&1; then
    tail -n 5 "$work/debootstrap.log"
    echo "skipped: debootstrap could not make a Debian 11 userland (no archive in reach?)"
    exit 77
  fi
fi
libc=$(ls "$root"/lib/*-linux-gnu/libc-2.*.so 2>/dev/null | head -n 1)
echo "userland: Debian $(cat "$root/etc/debian_version"), $(basename "$libc")"
check "the userland's C library is glibc 2.31" 0 test "$(basename "$libc")" = "libc-2.31.so"

# The dynamic loader finds the binary's own folder ($ORIGIN in its run path, where the archive keeps
# its libraries) through /proc/self/exe: a chroot needs /proc, as every real system has.
if [ $native = 1 ] && ! mountpoint -q "$root/proc"; then
  mount -t proc proc "$root/proc" || { echo "skipped: cannot mount /proc in the userland"; exit 77; }
  trap 'umount "$root/proc"; rm -rf "$work"' EXIT
fi
# What runs a command in the userland: chroot into it, or qemu with it as the library prefix.
inside() {
  if [ $native = 1 ]; then
    chroot "$root" /usr/bin/env -i PATH=/usr/bin:/bin HOME=/tmp /bin/sh -c "cd /tmp/empty && $*"
  else
    (cd "$root/tmp/empty" && env -i PATH=/usr/bin:/bin QEMU_LD_PREFIX="$root" /bin/sh -c "$*")
  fi
}
rm -rf "$root/tmp/empty" "$root/tmp/planlint" && mkdir -p "$root/tmp/empty" "$root/tmp/planlint"
tar xzf "$archive" -C "$root/tmp/planlint"
bin=$(cd "$root/tmp/planlint" && ls -d planlint-*/bin/planlint)
if [ $native = 1 ]; then
  run="/tmp/planlint/$bin"
else
  run="qemu-$machine $root/tmp/planlint/$bin"
fi
cp "$src/examples/plans/daily_revenue.txt" "$root/tmp/empty/plan.txt"
cp "$src/fixtures/source/notebooks/bad_pretty.ipynb" "$root/tmp/empty/nb.ipynb"
cp "$src/examples/eventlogs/nightly_etl.zstd" "$root/tmp/empty/log.zstd"

lint_all() {  # $1: how to run planlint inside; $2: a name for the checks
  check "$2: --version" 0 inside "$1 --version"
  contains "$2: prints the version" out "planlint "
  check "$2: lints a plan (findings: exit 1)" 1 inside "$1 plan.txt"
  contains "$2: plan finding" out "plan.txt:"
  check "$2: lints a notebook" 1 inside "$1 nb.ipynb"
  contains "$2: notebook finding at its cell" out "nb.ipynb:cell 3:3:17"
  check "$2: diagnoses a zstd event log" 1 inside "$1 eventlog log.zstd"
  contains "$2: event log read" out "log.zstd"
  check "$2: --format sarif" 1 inside "$1 --format sarif plan.txt"
  contains "$2: SARIF written" out '"version": "2.1.0"'
  check "$2: an unknown option is an error (exit 2)" 2 inside "$1 --no-such-option"
}
lint_all "$run" "archive"

if [ -n "$wheel" ]; then
  tag=$(basename "$wheel" .whl | awk -F- '{ print $NF }')
  echo "wheel tag: $tag"
  check "wheel tagged for $machine" 0 test "${tag##*_"$machine"}" = "" -a "${tag%%_*}" = manylinux
  if [ $native = 1 ]; then
    cp "$wheel" "$root/tmp/empty/"
    check "Debian 11's pip installs the wheel into a venv" 0 \
      inside "python3 -m venv /tmp/venv && /tmp/venv/bin/pip install --no-index --no-cache-dir -q ./$(basename "$wheel")"
    lint_all /tmp/venv/bin/planlint "wheel"
    check "wheel: planlint.check() in Debian 11's Python" 0 \
      inside "/tmp/venv/bin/python -c 'import planlint; f = planlint.check(open(\"plan.txt\").read()); assert len(f) > 0, f; print(len(f), \"findings\")'"
    contains "wheel: planlint.check() found what the CLI found" out "findings"
  else
    # pip installs a wheel only for the machine it runs on: the files inside are checked instead.
    mkdir -p "$work/wheel" && (cd "$work/wheel" && python3 -m zipfile -e "$wheel" .)
    files=$(find "$work/wheel" -type f \( -name planlint -o -name '*.so*' \) -path '*.data/*' | sort)
    echo "wheel's binaries: $(echo "$files" | sed "s|$work/wheel/||" | tr '\n' ' ')"
    check "wheel holds the binary" 0 grep -q '/scripts/planlint$' <<<"$files"
    want=$( [ "$machine" = aarch64 ] && echo AArch64 || echo X86-64)
    for f in $files; do
      check "wheel: $(basename "$f") is for $machine" 0 grep -q "Machine:.*$want" <(readelf -h "$f")
    done
    need=$(bash "$src/scripts/glibc-needs.sh" $files)
    floor=$(sed 's/^manylinux_\([0-9]*\)_\([0-9]*\)_.*/\1.\2/' <<<"$tag")
    echo "wheel's binaries need glibc $need; tag says $floor"
    check "wheel: needs no newer glibc than its tag" 0 \
      test "$(printf '%s\n%s\n' "$need" "$floor" | sort -t. -k1,1n -k2,2n | tail -n 1)" = "$floor"
  fi
fi
finish
