#!/usr/bin/env bash
# Event-log reading benchmark: time and peak RSS of `planlint eventlog` on generated logs of growing
# size (plain and zstd), beside a Python json.loads-per-line pass over the same file (what a script
# that computes the same figures costs) and `zstd -dc` alone (the decompression floor).
#   scripts/eventlog/bench.sh [PLANLINT] [OUT_DIR]
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
planlint=${1:-$root/build/planlint}
out=${2:-$(mktemp -d)}
mkdir -p "$out"
gen=$root/scripts/eventlog/gen_eventlog.py
measure() {  # prints "seconds peak_kb"
  /usr/bin/time -f "%e %M" "$@" 2>&1 >/dev/null | tail -1
}
printf '%-10s %10s %9s %10s %10s %12s %10s\n' size input_MB seconds MB_per_s peak_RSS_MB python_s ratio
for stages in 15 30 60; do
  f=$out/log-$stages
  [ -f "$f" ] || python3 "$gen" "$f" --stages "$stages" --tasks 4000 --pad 30 --skew-stage 1
  mb=$(( $(stat -c %s "$f") / 1048576 ))
  read -r s kb < <(measure "$planlint" eventlog --exit-zero "$f")
  py=$(/usr/bin/time -f "%e" python3 -c 'import json,sys
n=0
for line in open(sys.argv[1], "rb"):
    e=json.loads(line); n+=e.get("Event")=="SparkListenerTaskEnd"' "$f" 2>&1 >/dev/null | tail -1)
  printf '%-10s %10s %9s %10.0f %10.1f %12s %9.1fx\n' "plain-$stages" "$mb" "$s" "$(echo "$mb / $s" | bc -l)" \
    "$(echo "$kb / 1024" | bc -l)" "$py" "$(echo "$py / $s" | bc -l)"
  z=$f.zstd
  [ -f "$z" ] || zstd -q -3 -T2 "$f" -o "$z"
  zmb=$(( $(stat -c %s "$z") / 1048576 ))
  read -r zs zkb < <(measure "$planlint" eventlog --exit-zero "$z")
  floor=$(/usr/bin/time -f "%e" sh -c "zstd -dc '$z' >/dev/null" 2>&1 | tail -1)
  printf '%-10s %10s %9s %10.0f %10.1f %12s %9s\n' "zstd-$stages" "$zmb" "$zs" "$(echo "$mb / $zs" | bc -l)" \
    "$(echo "$zkb / 1024" | bc -l)" "zstd -dc $floor" "-"
done
echo "(MB_per_s counts uncompressed bytes; logs in $out)"
