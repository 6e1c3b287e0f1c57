#!/usr/bin/env bash
# Reports are streamed as files are linted: the same bytes whatever the number of threads, valid
# JSON and SARIF, an unreadable file reported in place, no temporary file left beside -o, a reader
# that stops early (| head) ends the run, and peak memory that does not grow with the number of files.
# usage: streaming_test.sh PLANLINT FIXTURES_DIR [VALIDATE_SARIF]
set -uo pipefail
planlint=$1
fixtures=$2
validate=${3:-}
[ -x "$validate" ] || { [ -n "$validate" ] && echo "skip SARIF validation: needs ../shared/tools/validate-sarif (not found: $validate)"; validate=""; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
source "$(dirname "$0")/lib.sh"
ok() { echo "ok   $1"; }
bad() { echo "FAIL $1"; fails=$((fails+1)); }

# A tree of 400 files with findings (Python, notebooks' neighbours: plans) and one that cannot be read.
make_tree() {  # DIR COPIES (one Python process, not two cp per file: the test ran mostly fork and exec)
  python3 - "$1" "$2" "$fixtures/source/collect-large/bad_collect.py" \
    "$fixtures/rules/redundant-shuffle/bad_repartition_then_groupby.plan" <<'PY'
import os, sys
root, copies = sys.argv[1], int(sys.argv[2])
py, plan = (open(f, "rb").read() for f in sys.argv[3:5])
for i in range(copies):
    d = os.path.join(root, f"d{i % 7}")
    os.makedirs(d, exist_ok=True)
    open(os.path.join(d, f"job{i}.py"), "wb").write(py)
    open(os.path.join(d, f"q{i}.plan"), "wb").write(plan)
PY
}
make_tree "$work/t" 200
printf '\xff\xfeU\x00T\x00F\x00' > "$work/t/d3/utf16.py"

for fmt in text json sarif github; do
  "$planlint" --isolated --no-cache --exit-zero -j1 --format "$fmt" "$work/t" >"$work/j1.$fmt" 2>/dev/null
  same=1
  for j in 2 3; do
    "$planlint" --isolated --no-cache --exit-zero -j$j --format "$fmt" "$work/t" >"$work/j$j.$fmt" 2>/dev/null
    cmp -s "$work/j1.$fmt" "$work/j$j.$fmt" || same=0
  done
  [ "$same" = 1 ] && ok "$fmt: -j2 and -j3 write the bytes -j1 writes" || bad "$fmt: output depends on -j"
done
# Under an address-space limit (a container's, here 4 GB) a folder is linted the same: planlint
# reserves no large address range up front.
# Not under sanitizers, which reserve terabytes.
if [ -z "${ASAN_OPTIONS:-}" ]; then
  (ulimit -v 4000000 && "$planlint" --isolated --no-cache --exit-zero -j2 --format text "$work/t") \
    >"$work/limited.text" 2>/dev/null
  cmp -s "$work/j1.text" "$work/limited.text" && ok "the same report under a 4 GB address-space limit" \
    || bad "a limited address space changes the report"
fi
# Every file's findings, in input (sorted path) order, with the unreadable file named.
n_text=$(grep -c ': warning: \|: error: \|: info: ' "$work/j1.text")
n_json=$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(len(d["diagnostics"]), len(d["errors"]))' "$work/j1.json")
[ "$n_json" = "$n_text 1" ] && ok "JSON parses: $n_text findings, 1 error, as in the text report" || bad "JSON: '$n_json' vs $n_text text findings"
python3 - "$work/j1.json" <<'EOF' && ok "JSON findings in input order" || bad "JSON findings out of order"
import json, sys
files = [d["file"] for d in json.load(open(sys.argv[1]))["diagnostics"]]
sys.exit(0 if len(files) > 0 and files == sorted(files) else 1)
EOF
contains "text summary counts the unreadable file" j1.text "1 file could not be checked"
python3 -c 'import json,sys; r=json.load(open(sys.argv[1]))["runs"][0]; sys.exit(0 if len(r["results"]) > 0 and r["invocations"][0]["executionSuccessful"] is False else 1)' "$work/j1.sarif" \
  && ok "SARIF parses, results present, the unreadable file makes the run unsuccessful" || bad "SARIF content"
if [ -n "$validate" ] && [ -x "$validate" ]; then
  "$validate" "$work/j1.sarif" >/dev/null 2>&1 && ok "streamed SARIF validates against the schemas" || bad "streamed SARIF invalid"
fi

# -o: written through a temporary file that is renamed at the end; nothing else left in the folder.
mkdir "$work/dest"
echo old > "$work/dest/report.json"
check "-o exit status (an unreadable file: 2)" 2 "$planlint" --isolated --no-cache --format json -o "$work/dest/report.json" "$work/t"
cmp -s "$work/dest/report.json" "$work/j1.json" && ok "-o report equals the stdout report" || bad "-o report differs"
[ "$(ls -A "$work/dest")" = "report.json" ] && ok "no temporary file left beside -o" || bad "left in dest/: $(ls -A "$work/dest")"

# A reader that stops after one line ends the run (SIGPIPE or a write error), no hang.
timeout 60 bash -c "\"$planlint\" --isolated --no-cache -j2 \"$work/t\" | head -1 >/dev/null"
[ $? != 124 ] && ok "| head -1 ends the run" || bad "| head -1 hung"

# Peak memory does not grow with the number of files (the findings of 400 files or of 4,000 are
# never held together): ten times the files stay under twice the RSS. The list of inputs does grow
# (about 8 MB -> 11.4 MB here, under 500 bytes a file, which measured over 1.5x on a loaded CI
# machine); results held to the end took 10,000 files from 15 MB to over 400 MB. Not under
# sanitizers, whose allocators keep freed memory on purpose.
if [ -z "${ASAN_OPTIONS:-}" ] && [ -x /usr/bin/time ]; then
  make_tree "$work/big" 2000
  for fmt in text sarif; do
    /usr/bin/time -f %M -o "$work/rss1" "$planlint" --isolated --no-cache -j2 --format $fmt "$work/t" >/dev/null 2>&1
    /usr/bin/time -f %M -o "$work/rss10" "$planlint" --isolated --no-cache -j2 --format $fmt "$work/big" >/dev/null 2>&1
    small=$(tail -1 "$work/rss1") large=$(tail -1 "$work/rss10")
    [ "$large" -lt $((small * 2)) ] && ok "$fmt: peak RSS ${small} KB for 400 files, ${large} KB for 4,000" \
      || bad "$fmt: peak RSS grows with the files: ${small} KB -> ${large} KB"
  done
fi

# One file of many plans is linted a plan at a time: its peak RSS above an empty file's stays
# under three times its size (it was about seven times when the whole document was held).
if [ -z "${ASAN_OPTIONS:-}" ] && [ -x /usr/bin/time ]; then
  plan=$fixtures/rules/redundant-shuffle/ok_groupby_two_stage.plan  # no findings: the plans, not the report
  python3 -c 'import sys; p = open(sys.argv[1], "rb").read(); open(sys.argv[2], "wb").write((p + b"\n") * 8000)' \
    "$plan" "$work/many.plan"
  : > "$work/empty.plan"
  size_kb=$(( $(wc -c < "$work/many.plan") / 1024 ))
  /usr/bin/time -f %M -o "$work/rss0" "$planlint" --isolated --no-cache --exit-zero -q "$work/empty.plan" >/dev/null 2>&1
  /usr/bin/time -f %M -o "$work/rssp" "$planlint" --isolated --no-cache --exit-zero -q "$work/many.plan" >/dev/null 2>&1
  base=$(tail -1 "$work/rss0") peak=$(tail -1 "$work/rssp")
  [ $((peak - base)) -lt $((size_kb * 3)) ] && ok "a ${size_kb} KB file of 8,000 plans: $((peak - base)) KB above an empty file's RSS" \
    || bad "a ${size_kb} KB file of 8,000 plans needs $((peak - base)) KB (3x is $((size_kb * 3)))"
fi
# One file of many findings: its report is written as it is rendered, not held whole. The run that
# prints every finding needs little more memory than the one that prints only their counts. The
# finding that `df` is computed 20,000 times lists 100 of its uses, and says how many more there are.
if [ -z "${ASAN_OPTIONS:-}" ] && [ -x /usr/bin/time ]; then
  { echo 'df = spark.table("t").join(spark.table("u"), "k")'; for ((i = 0; i < 20000; i++)); do echo "rows$i = df.collect()"; done; } > "$work/many_findings.py"
  for fmt in text json sarif; do
    /usr/bin/time -f %M -o "$work/rss_stats" "$planlint" --isolated --no-cache --exit-zero --statistics "$work/many_findings.py" >/dev/null 2>&1
    /usr/bin/time -f %M -o "$work/rss_all" "$planlint" --isolated --no-cache --exit-zero --format $fmt "$work/many_findings.py" >"$work/report" 2>&1
    stats=$(tail -1 "$work/rss_stats") all=$(tail -1 "$work/rss_all") report_kb=$(( $(wc -c < "$work/report") / 1024 ))
    [ "$report_kb" -gt 4096 ] && [ $((all - stats)) -lt $((report_kb / 2)) ] \
      && ok "$fmt: a ${report_kb} KB report of one file needs $((all - stats)) KB more than its counts" \
      || bad "$fmt: a ${report_kb} KB report of one file needs $((all - stats)) KB more than its counts (${stats} KB)"
  done
  python3 - "$work/report" <<'PY' && ok "a finding lists 100 related locations and counts the rest" || bad "related locations are not limited"
import json, sys
results = json.load(open(sys.argv[1]))["runs"][0]["results"]
first = results[0]
assert len(first["relatedLocations"]) == 100, len(first["relatedLocations"])
assert "(19900 more locations are not listed)" in first["message"]["text"], first["message"]["text"][-200:]
PY
  [ -z "$validate" ] || "$validate" "$work/report" >/dev/null && ok "that SARIF validates" || bad "that SARIF does not validate"
fi
finish
