#!/usr/bin/env bash
# Faults and hostile inputs of issue 43: a full disk, a kill while a file is rewritten, read-only
# files, unbounded standard input, absurd thread counts, FIFOs given as options, a full standard
# output. Each case checks the exit code, the message (naming the file), and that nothing is damaged
# or half-written. Cases that need root (a small tmpfs) or a C compiler skip with a message.
set -uo pipefail
planlint=$1 shims=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
chmod 755 "$work"
CHECK_TIMEOUT=60
source "$(dirname "$0")/lib.sh"
same() {  # same NAME FILE1 FILE2
  if cmp -s "$2" "$3"; then echo "ok   $1"; else echo "FAIL $1: $2 differs from $3"; fails=$((fails+1)); fi
}
# A job whose unsafe fix makes the file longer (a cache and an unpersist are added).
job() {
  printf 'df = spark.read.parquet("s3://b/orders").groupBy("k").count()\n'
  printf 'df.write.parquet("s3://b/out1")\ndf.write.parquet("s3://b/out2")\n'
  for i in $(seq 1 400); do printf '# padding line %04d of a long job file, to make it a few pages long\n' "$i"; done
}
fix=(--isolated --fix --unsafe-fixes --select recomputed-lineage)

# 1. A hard-linked file keeps its link and is never left half-written.
mkdir "$work/links" && job >"$work/links/a.py" && ln "$work/links/a.py" "$work/links/b.py"
job >"$work/orig.py"
check "--fix on a hard link" 0 "$planlint" "${fix[@]}" "$work/links/a.py"
[ "$(stat -c %h "$work/links/a.py")" = 2 ] && grep -q 'count().cache()' "$work/links/b.py" \
  && echo "ok   hard link kept, both names fixed" || { echo "FAIL hard link"; fails=$((fails+1)); }
cp "$work/links/a.py" "$work/fixed.py"
[ -z "$(ls -A "$work/links" | grep planlint)" ] && echo "ok   no temporary file left" \
  || { echo "FAIL temporary file left"; ls -A "$work/links"; fails=$((fails+1)); }

# 1. A full disk: the temporary copy fails before the original is touched (root: a small tmpfs).
if [ "$(id -u)" = 0 ] && mkdir "$work/small" && mount -t tmpfs -o size=64k tmpfs "$work/small" 2>/dev/null; then
  job >"$work/small/a.py" && ln "$work/small/a.py" "$work/small/b.py"
  head -c $(( $(df -B1 --output=avail "$work/small" | tail -1) - 8192 )) /dev/zero >"$work/small/fill" 2>/dev/null
  check "--fix on a full disk: exit 2" 2 "$planlint" "${fix[@]}" "$work/small/a.py"
  contains "full disk named" err "a.py: cannot write"
  contains "full disk says why" err "no space left on device"
  same "full disk: the original is untouched" "$work/small/b.py" "$work/orig.py"
  [ "$(stat -c %h "$work/small/a.py")" = 2 ] && echo "ok   full disk: link kept" || { echo "FAIL link"; fails=$((fails+1)); }
  [ -z "$(ls -A "$work/small" | grep planlint)" ] && echo "ok   full disk: no temporary file left" \
    || { echo "FAIL temporary file left on a full disk"; fails=$((fails+1)); }
  rm -f "$work/small/b.py" "$work/small/a.py" "$work/small/fill" && job >"$work/small/c.py"
  head -c $(( $(df -B1 --output=avail "$work/small" | tail -1) - 8192 )) /dev/zero >"$work/small/fill" 2>/dev/null
  check "--fix on a full disk, one name: exit 2" 2 "$planlint" "${fix[@]}" "$work/small/c.py"
  same "full disk, one name: the original is untouched" "$work/small/c.py" "$work/orig.py"
  umount "$work/small"
else
  echo "skip full disk: needs root and a tmpfs mount"
fi

# 1. Killed in the middle of rewriting a hard-linked file: the fixed text is complete somewhere.
# (A sanitizer build intercepts pwrite itself, before any preloaded library: skipped there.)
if grep -q __asan_init "$planlint" 2>/dev/null; then
  echo "skip kill during a rewrite: a sanitizer build intercepts the write before the shim"
elif command -v cc >/dev/null && cc -shared -fPIC -o "$work/stall.so" "$shims/stall_write.c" -ldl 2>"$work/cc.err"; then
  mkdir "$work/kill" && job >"$work/kill/victim.py" && ln "$work/kill/victim.py" "$work/kill/other.py"
  STALL_WRITE_MATCH=victim.py STALL_WRITE_MARK="$work/stalled" LD_PRELOAD="$work/stall.so" \
    "$planlint" "${fix[@]}" "$work/kill/victim.py" >/dev/null 2>&1 &
  pid=$!
  for _ in $(seq 1 200); do [ -e "$work/stalled" ] && break; sleep 0.05; done
  kill -9 "$pid" 2>/dev/null; wait "$pid" 2>/dev/null
  if [ ! -e "$work/stalled" ]; then
    echo "FAIL kill: the rewrite never started"; fails=$((fails+1))
  elif cmp -s "$work/kill/victim.py" "$work/orig.py" || cmp -s "$work/kill/victim.py" "$work/fixed.py"; then
    echo "ok   kill: the file is whole"
  else
    kept=$(ls -A "$work/kill" | grep '^\.victim\.py\.planlint-' | head -1)
    [ -n "$kept" ] && cmp -s "$work/kill/$kept" "$work/fixed.py" \
      && echo "ok   kill: the fixed text is kept whole beside the file ($kept)" \
      || { echo "FAIL kill: neither version is whole"; ls -A "$work/kill"; fails=$((fails+1)); }
  fi
else
  echo "skip kill during a rewrite: no C compiler"
fi

# 1. A file name near the 255-byte limit is fixed too (its temporary copy's name is cut to fit).
long=$(printf 'j%.0s' $(seq 1 240)).py
mkdir "$work/longname" && job >"$work/longname/$long" && ln "$work/longname/$long" "$work/longname/other.py"
check "--fix of a 243-byte file name" 0 "$planlint" "${fix[@]}" "$work/longname/$long"
grep -q 'count().cache()' "$work/longname/other.py" && echo "ok   long name fixed, link kept" || { echo "FAIL long name"; fails=$((fails+1)); }

# 2. A read-only file is not replaced through its writable folder.
mkdir "$work/ro" && job >"$work/ro/job.py" && chmod 444 "$work/ro/job.py"
check "--fix of a read-only file: exit 2" 2 "$planlint" "${fix[@]}" "$work/ro/job.py"
contains "read-only named" err "job.py: cannot write"
contains "read-only says why" err "read-only file"
same "read-only file unchanged" "$work/ro/job.py" "$work/orig.py"
[ "$(stat -c %a "$work/ro/job.py")" = 444 ] && echo "ok   read-only mode kept" || { echo "FAIL mode"; fails=$((fails+1)); }
lacks "read-only: no fix claimed" out "Fixed"
# As an unprivileged user (root can write anything): a file it may not write, in a folder it may,
# keeps its owner and contents.
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null &&
  setpriv --reuid=65534 --regid=65534 --clear-groups "$planlint" --version >/dev/null 2>&1; then
  mkdir "$work/open" && chmod 777 "$work/open" && job >"$work/open/job.py" && chmod 644 "$work/open/job.py"
  check "--fix of another user's file in a writable folder: exit 2" 2 \
    setpriv --reuid=65534 --regid=65534 --clear-groups "$planlint" "${fix[@]}" "$work/open/job.py"
  same "another user's file unchanged" "$work/open/job.py" "$work/orig.py"
  [ "$(stat -c %u "$work/open/job.py")" = 0 ] && echo "ok   owner kept" || { echo "FAIL owner changed"; fails=$((fails+1)); }
else
  echo "skip --fix as an unprivileged user: needs root, setpriv and a binary user nobody can run"
fi

# 5. Standard input has the bound files have.
check "300 MiB on standard input: exit 2" 2 sh -c 'head -c 314572800 /dev/zero | "$0" --isolated -' "$planlint"
contains "standard input bound named" err "<stdin>: larger than 256 MiB: not read"
lacks "standard input bound: no success" out "All checks passed"

# 6. Absurd thread counts are held to what helps; nothing aborts.
job >"$work/j1.py" && printf 'x = 1\n' >"$work/j2.py"
for j in 100000 20000; do
  check "-j $j: runs" 1 "$planlint" --isolated --fail-on info -j "$j" "$work/j1.py" "$work/j2.py" "$work"
  contains "-j $j: the findings" out "Found"
done

# 7. FIFOs given where a file is expected (no writer): an answer at once, never a hang.
mkfifo "$work/fifo"
check "eventlog FIFO: no hang" 2 "$planlint" eventlog "$work/fifo"
contains "eventlog FIFO named" err "fifo: empty file: not an event log"
mkdir -p "$work/eventlog_v2_app-1" && mkfifo "$work/eventlog_v2_app-1/events_1_app-1"
check "rolling folder with a FIFO part: no hang" 2 "$planlint" eventlog "$work/eventlog_v2_app-1"
check "diff FIFO: no hang" 0 "$planlint" diff "$work/fifo" "$work/fifo"
check "--baseline FIFO: no hang" 2 "$planlint" --isolated --baseline "$work/fifo" "$work/j2.py"
contains "--baseline FIFO named" err "fifo: not a planlint baseline"
check "--config FIFO: no hang" 0 "$planlint" --config "$work/fifo" "$work/j2.py"

# 9. Every command that writes to a full standard output says so and exits 2.
plan=$work/p.plan && printf '== Physical Plan ==\n*(1) Scan ExistingRDD[id#0L]\n' >"$plan"
for cmd in "parse $plan" "parse --dump json $plan" "rules" "rule recomputed-lineage" "--version" "--help" \
  "eventlog --help" "--isolated $work/j1.py"; do
  # shellcheck disable=SC2086
  check "full stdout: planlint $cmd" 2 sh -c "\"\$0\" $cmd >/dev/full" "$planlint"
  contains "full stdout named: $cmd" err "standard output"
done
check "full stdout: --fix of standard input" 2 sh -c '"$0" --isolated --fix --unsafe-fixes - --stdin-filename x.py <"$1" >/dev/full' \
  "$planlint" "$work/j1.py"
contains "full stdout: the lost fixed code is an error" err "standard output"

# 11. Invalid option and configuration values are errors naming the option (and file:line:col).
for v in banana 1e9; do
  check "--target-spark-version '$v'" 2 "$planlint" --isolated --target-spark-version "$v" "$work/j2.py"
  contains "--target-spark-version '$v' named" err "--target-spark-version: '$v' is not a Spark version"
done
check "--target-spark-version 3.5.0-SNAPSHOT is a version" 0 "$planlint" --isolated --target-spark-version 3.5.0-SNAPSHOT "$work/j2.py"
for v in nan 1e999 99999999999999999999999TB -5MB; do
  check "--broadcast-threshold $v" 2 "$planlint" --isolated --broadcast-threshold "$v" "$work/j2.py"
  contains "--broadcast-threshold $v named" err "--broadcast-threshold: '$v' is not a size"
done
check "--dbu-rate nan" 2 "$planlint" eventlog --compare "$work/fifo" "$work/fifo" --dbu-rate nan
contains "--dbu-rate nan named" err "--dbu-rate"
mkdir "$work/cfg"
for c in 'broadcast-threshold = -5' 'tolerated-shuffle-partitions = [-1]' 'target-spark-version = ""' \
  'target-spark-version = "1e9"' 'broadcast-threshold = "nan"'; do
  printf '# planlint\n%s\n' "$c" >"$work/cfg/planlint.toml"
  check "config $c" 2 "$planlint" --config "$work/cfg/planlint.toml" "$work/j2.py"
  contains "config $c: file:line:col" err "planlint.toml:2:"
done

# 12. Names from an event log are shown, never obeyed: no escape sequence reaches the terminal, no
# HTML comment or image renders in Markdown, no raw control character in HTML.
python3 "$(dirname "$0")/../scripts/eventlog/gen_eventlog.py" "$work/plain.json" --stages 2 --tasks 20 >/dev/null
python3 - "$work/plain.json" "$work/evil.json" <<'PY'
import json, sys
evil = "\x1b]0;pwned\x07\x1b[2J<!-- hidden --><img src=x><b>bold</b> \u009b31m"
with open(sys.argv[1]) as f, open(sys.argv[2], "w") as out:
    for line in f:
        e = json.loads(line)
        if "Stage Info" in e:
            e["Stage Info"]["Stage Name"] = evil
        if e.get("Event") == "SparkListenerApplicationStart":
            e["App Name"] = evil
        out.write(json.dumps(e) + "\n")
PY
for fmt in text markdown html; do
  check "crafted stage names: $fmt" 0 "$planlint" eventlog --format "$fmt" "$work/evil.json"
  if LC_ALL=C grep -q "$(printf '\033')" "$work/out" || LC_ALL=C grep -q "$(printf '\302\233')" "$work/out"; then
    echo "FAIL crafted stage names: $fmt has a raw control character"; fails=$((fails+1))
  else
    echo "ok   crafted stage names: $fmt has no raw control character"
  fi
done
check "crafted stage names: markdown" 0 "$planlint" eventlog --format markdown "$work/evil.json"
lacks "markdown: no HTML comment" out "<!--"
lacks "markdown: no image" out "<img"
contains "markdown: the name is shown as text" out "&lt;img src=x&gt;"

# 13. C1 controls in a flagged line (text output) and ESC in a message (GitHub output).
printf 'df = spark.read.parquet("s3://b/x")\nif df.count() == 0:  # \302\233 2J\n    pass\n' >"$work/c1.py"
check "C1 control in a flagged line: text" 0 "$planlint" --isolated --color never "$work/c1.py"
contains "C1 control shown escaped" out "# \\u009b 2J"
printf 'df = spark.read.parquet("s3://b/x")\nif df.count() == 0:  # \233 2J\n    pass\n' >"$work/lone.py"
check "a lone 0x9b byte in a flagged line" 0 "$planlint" --isolated --color never "$work/lone.py"
contains "lone 0x9b shown escaped" out "# \\x9b 2J"
python3 "$(dirname "$0")/../scripts/eventlog/gen_eventlog.py" "$work/skew.json" --stages 3 --tasks 200 --skew-stage 1 >/dev/null
python3 - "$work/skew.json" "$work/skew-esc.json" <<'PY'
import json, sys
with open(sys.argv[1]) as f, open(sys.argv[2], "w") as out:
    for line in f:
        e = json.loads(line)
        if "Stage Info" in e:
            e["Stage Info"]["Stage Name"] = "collect at \x1b[2Jjob.py:12"
        out.write(json.dumps(e) + "\n")
PY
check "ESC in a message: github" 1 "$planlint" --isolated --format github "$work/skew-esc.json"
contains "github: the stage name is in the message" out "collect at \\x1b[2Jjob.py:12"
if LC_ALL=C grep -q "$(printf '\033')" "$work/out"; then echo "FAIL github output has a raw ESC"; fails=$((fails+1)); else echo "ok   github output has no raw ESC"; fi

# 8. Rolling logs are read as Spark reads them: a missing part is refused with its index, a part
# present twice is read once, files before the last compacted one are skipped; the report says so.
python3 "$(dirname "$0")/../scripts/eventlog/gen_eventlog.py" "$work/base.json" --stages 4 --tasks 50 >/dev/null
roll() {  # roll DIR: the log cut into events_1.._4 parts
  mkdir -p "$1" && python3 - "$work/base.json" "$1" <<'PY'
import sys
lines = open(sys.argv[1]).read().splitlines(True)
for i in range(4):
    open(f"{sys.argv[2]}/events_{i + 1}_app-1", "w").writelines(lines[i * len(lines) // 4:(i + 1) * len(lines) // 4])
open(f"{sys.argv[2]}/appstatus_app-1", "w").close()
PY
}
roll "$work/eventlog_v2_whole"
check "rolling log: whole" 0 "$planlint" eventlog --format json "$work/eventlog_v2_whole"
tasks=$(python3 -c 'import json,sys; print(sum(s["tasks"] for s in json.load(open(sys.argv[1]))["applications"][0]["stages"]))' "$work/out" 2>/dev/null)
roll "$work/eventlog_v2_gap" && rm "$work/eventlog_v2_gap/events_2_app-1"
check "rolling log with a missing part: exit 2" 2 "$planlint" eventlog "$work/eventlog_v2_gap"
contains "missing part named" err "eventlog_v2_gap: part 2 of the rolling log is missing"
roll "$work/eventlog_v2_dup"
cp "$work/eventlog_v2_dup/events_2_app-1" "$work/eventlog_v2_dup/events_02_app-1"
cp "$work/eventlog_v2_dup/events_1_app-1" "$work/eventlog_v2_dup/events_1_app-1.copy"
check "rolling log with parts twice" 0 "$planlint" eventlog --format json "$work/eventlog_v2_dup"
dup_tasks=$(python3 -c 'import json,sys; print(sum(s["tasks"] for s in json.load(open(sys.argv[1]))["applications"][0]["stages"]))' "$work/out" 2>/dev/null)
[ -n "$tasks" ] && [ "$tasks" = "$dup_tasks" ] && echo "ok   parts present twice are read once ($tasks tasks)" \
  || { echo "FAIL parts twice: $dup_tasks tasks, want $tasks"; fails=$((fails+1)); }
check "rolling log with parts twice: text" 0 "$planlint" eventlog "$work/eventlog_v2_dup"
contains "duplicate part reported" out "part 2 is present twice: read events_2_app-1, skipped events_02_app-1"
contains "copy reported" out "part 1 is present twice: read events_1_app-1, skipped events_1_app-1.copy"
roll "$work/eventlog_v2_compact"
cat "$work/eventlog_v2_compact"/events_{1,2,3}_app-1 >"$work/eventlog_v2_compact/events_3_app-1.compact"
rm "$work/eventlog_v2_compact"/events_{1,2}_app-1
check "rolling log after compaction" 0 "$planlint" eventlog --format json "$work/eventlog_v2_compact"
cmp_tasks=$(python3 -c 'import json,sys; print(sum(s["tasks"] for s in json.load(open(sys.argv[1]))["applications"][0]["stages"]))' "$work/out" 2>/dev/null)
[ -n "$tasks" ] && [ "$tasks" = "$cmp_tasks" ] && echo "ok   the file before the compacted part is skipped" \
  || { echo "FAIL compaction: $cmp_tasks tasks, want $tasks"; fails=$((fails+1)); }

# 3. A compressed event log whose first line spans many read chunks is read whole (bench/scaling
# times it: each byte is searched for a newline once).
python3 - "$work/base.json" "$work/longline.gz" <<'PY'
import gzip, sys
lines = open(sys.argv[1]).read().splitlines(True)
pad = '"Padding":"' + "x" * (20 * 1024 * 1024) + '"'
lines[0] = lines[0].rstrip().rstrip("}") + "," + pad + "}\n"
with gzip.open(sys.argv[2], "wt") as f:
    f.writelines(lines)
PY
check "one 20 MB line in a gzip log" 0 "$planlint" eventlog --format json "$work/longline.gz"
long_tasks=$(python3 -c 'import json,sys; print(sum(s["tasks"] for s in json.load(open(sys.argv[1]))["applications"][0]["stages"]))' "$work/out" 2>/dev/null)
[ -n "$tasks" ] && [ "$tasks" = "$long_tasks" ] && echo "ok   the long line and the rest are read" || { echo "FAIL long line: $long_tasks tasks"; fails=$((fails+1)); }

# 19. Messages that say what is wrong: UTF-32 is not called UTF-16; a log whose content is another
# codec's than its name says is read by its content, and the report says so; a valid JSON line that
# lacks a field names the field.
printf '\377\376\000\000x\000\000\000' >"$work/u32.py"
check "UTF-32 file" 2 "$planlint" --isolated "$work/u32.py"
contains "UTF-32 named as such" err "u32.py: UTF-32 text is not supported"
python3 - "$work/base.json" "$work/named.lz4" "$work/named.zstd" "$work/missing.json" <<'PY'
import gzip, json, shutil, sys
with open(sys.argv[1], "rb") as f, gzip.open(sys.argv[2], "wb") as g:
    shutil.copyfileobj(f, g)
shutil.copy(sys.argv[1], sys.argv[3])
with open(sys.argv[1]) as f, open(sys.argv[4], "w") as out:
    for line in f:
        e = json.loads(line)
        if e["Event"] == "SparkListenerStageCompleted":
            del e["Stage Info"]["Stage ID"]
        out.write(json.dumps(e) + "\n")
    out.write('{"foo": 1}\n')
PY
check "gzip named .lz4: read" 0 "$planlint" eventlog "$work/named.lz4"
contains "gzip named .lz4: said" out "named.lz4: named as lz4 but its content is gzip: read as such"
contains "gzip named .lz4: tasks read" out "codec gzip"
check "plain JSON named .zstd: read" 0 "$planlint" eventlog "$work/named.zstd"
contains "plain JSON named .zstd: said" out "named as zstd but its content is plain JSON"
check "a line without a field" 1 "$planlint" eventlog "$work/missing.json"
contains "the missing field is named" out 'SparkListenerStageCompleted event lacks the "Stage ID" field; skipped'
contains "a line without an Event" out 'a JSON event lacks the "Event" field; skipped'

# 4. --diff of thousands of fixed lines: a diff that applies, in bounded memory (the trace of the
# plain Myers diff took 1.9 GB for these 10,000 changes; virtual memory is capped at 600 MB here,
# except in a sanitizer build, whose shadow memory needs more).
python3 - "$work/many.py" <<'PY'
import sys
with open(sys.argv[1], "w") as f:
    for i in range(10000):
        f.write(f'df{i} = spark.read.parquet("s3://b/x{i}")\nif df{i}.count() == 0:\n    pass\n')
PY
cp "$work/many.py" "$work/many.orig"
if grep -q __asan_init "$planlint" 2>/dev/null; then
  check "--diff of 10,000 fixes" 1 "$planlint" --isolated --diff "$work/many.py"
else
  check "--diff of 10,000 fixes in 600 MB" 1 sh -c 'ulimit -v 600000 && exec "$0" --isolated --diff "$1"' "$planlint" "$work/many.py"
fi
cp "$work/out" "$work/many.diff"
[ "$(grep -c '^-if df.*count() == 0:' "$work/many.diff")" = 10000 ] && [ "$(grep -c '^+if df.*isEmpty():' "$work/many.diff")" = 10000 ] \
  && echo "ok   --diff: each fixed line once, nothing else" || { echo "FAIL --diff lines"; fails=$((fails+1)); }
same "--diff wrote nothing" "$work/many.py" "$work/many.orig"
if command -v patch >/dev/null; then
  patch -s "$work/many.py" <"$work/many.diff" && cp "$work/many.orig" "$work/many2.py" \
    && "$planlint" --isolated --fix "$work/many2.py" >/dev/null 2>&1
  same "--diff applies to what --fix writes" "$work/many.py" "$work/many2.py"
fi

finish
