#!/usr/bin/env bash
# Builds the libFuzzer targets (instrumented libraries, ASan + UBSan) and runs each for SECONDS,
# seeded at run time from fixtures/ and ../shared/corpus (nothing fetched or generated is committed).
# Prints executions and coverage per target; crashes go to $OUT/artifacts (outside the repository).
#   usage: scripts/fuzz.sh [SECONDS=30] [OUT=/tmp/planlint-fuzz] [TARGET...]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
seconds=${1:-30}
out=${2:-/tmp/planlint-fuzz}
shift $(( $# > 2 ? 2 : $# )) || true
targets=("$@")
[ ${#targets[@]} -eq 0 ] && targets=(plan_fuzz source_fuzz notebook_fuzz config_fuzz eventlog_fuzz)
build=${PLANLINT_FUZZ_BUILD:-$out/build}
mkdir -p "$out/artifacts"
cmake -S "$root" -B "$build" -G Ninja -DPLANLINT_FUZZ=ON -DPLANLINT_BENCH=OFF -DPLANLINT_TIDY_TEST=OFF \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_C_COMPILER=clang >/dev/null
cmake --build "$build" -j"$(nproc)" --target "${targets[@]}" >/dev/null
corpus=$root/../shared/corpus
seed() {  # seed TARGET DIR: files under 64 kB as the starting corpus
  local dir=$2
  [ -d "$dir" ] && return
  mkdir -p "$dir"
  case $1 in
    plan_fuzz) find "$root/fixtures/rules" "$root/fixtures/plans" "$root/fixtures/diff" "$corpus/plans" -type f \( -name '*.plan' -o -name '*.txt' \) -size -64k 2>/dev/null ;;
    source_fuzz) find "$root/fixtures/source" -type f -name '*.py' -size -64k ;;
    notebook_fuzz) find "$root/fixtures/source" -type f \( -name '*.ipynb' -o -name '*.py' \) -size -64k ;;
    config_fuzz) find "$root" -maxdepth 3 -name 'pyproject.toml' -size -64k; find "$root/tests" -name '*.json' -size -64k ;;
    eventlog_fuzz) find "$corpus/eventlogs" -type f ! -name '*.md' -size -64k ;;
  esac | head -2000 | while read -r f; do
    if [ "$1" = notebook_fuzz ]; then  # mode byte 0 (raw notebook) or 2 (Databricks body)
      { if [[ $f == *.ipynb ]]; then printf '\x00'; else printf '\x02'; fi; cat "$f"; } >"$dir/$(basename "$f").seed"
    elif [ "$1" = eventlog_fuzz ]; then  # mode byte 0 (plain) or 2 (zstd); 6 frames a plain log as lz4
      { if [[ $f == *.zstd ]]; then printf '\x02'; else printf '\x00'; fi; cat "$f"; } >"$dir/$(basename "$f").seed"
    else
      cp "$f" "$dir/$(basename "$f").$RANDOM"
    fi
  done
  # An input of our own so that no seed directory is empty.
  printf 'df = spark.table("t")\nrows = df.collect()\n' >"$dir/minimal"
  if [ "$1" = eventlog_fuzz ]; then  # small synthetic logs of our own, plain and framed
    local g=$root/scripts/eventlog/gen_eventlog.py
    python3 "$g" "$dir/.gen" --stages 2 --tasks 6 --skew-stage 1 --smj-bytes 9000,100 --gap-ms 20000
    { printf '\x00'; cat "$dir/.gen"; } >"$dir/synthetic-plain"
    { printf '\x06'; cat "$dir/.gen"; } >"$dir/synthetic-lz4"
    { printf '\x07'; cat "$dir/.gen"; } >"$dir/synthetic-snappy"
    # Issue 43's shapes: a valid JSON line without the field its event needs, a line without an
    # Event, a stage name with terminal escapes and HTML.
    python3 - "$dir/.gen" "$dir/.hostile" <<'PY'
import json, sys
with open(sys.argv[1]) as f, open(sys.argv[2], "w") as out:
    for line in f:
        e = json.loads(line)
        if e.get("Event") == "SparkListenerStageCompleted":
            del e["Stage Info"]["Stage ID"]
        elif "Stage Info" in e:
            e["Stage Info"]["Stage Name"] = "\x1b]0;t\x07<!-- x --><img src=y> \u009b2J"
        out.write(json.dumps(e) + "\n")
    out.write('{"foo": 1}\n')
PY
    { printf '\x00'; cat "$dir/.hostile"; } >"$dir/synthetic-hostile"
    rm -f "$dir/.gen" "$dir/.hostile"
  fi
  if [ "$1" = config_fuzz ]; then  # values a configuration must refuse (issue 43)
    printf '[tool.planlint]\nbroadcast-threshold = "nan"\ntarget-spark-version = "1e9"\n' >"$dir/invalid-values.toml"
    printf '[tool.planlint]\nbroadcast-threshold = -5\ntolerated-shuffle-partitions = [-1]\n' >"$dir/negative.toml"
  fi
  if [ "$1" = source_fuzz ]; then  # control characters in a flagged line (issue 43)
    printf 'df = spark.table("t")  # \302\233 2J \033[2J\nif df.count() == 0:\n    pass\n' >"$dir/controls"
  fi
}
status=0
for t in "${targets[@]}"; do
  seed "$t" "$out/corpus/$t"
  log=$out/$t.log
  if ! "$build/fuzz/$t" "$out/corpus/$t" -max_total_time="$seconds" -rss_limit_mb=4096 -timeout=20 \
      -artifact_prefix="$out/artifacts/$t-" -print_final_stats=1 >"$log" 2>&1; then
    echo "$t: CRASH, see $log and $out/artifacts"; status=1
  fi
  execs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' || echo 0)
  cov=$(grep -oE 'cov: [0-9]+' "$log" | tail -1 | grep -oE '[0-9]+' || echo 0)
  ft=$(grep -oE 'ft: [0-9]+' "$log" | tail -1 | grep -oE '[0-9]+' || echo 0)
  printf '%-14s %6ss  executions %9s  coverage %6s edges  features %7s\n' "$t" "$seconds" "$execs" "$cov" "$ft"
done
exit $status
