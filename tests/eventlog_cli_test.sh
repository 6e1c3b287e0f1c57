#!/usr/bin/env bash
# `planlint eventlog` end to end: exit codes, every report format (SARIF validated), ranking many
# logs, --compare with its cost estimate, plain `planlint` on a log, unreadable logs, and per-stage
# figures checked against an independent Python computation on real logs.
set -uo pipefail
planlint=$1 root=$2 corpus=$3
validate=$(cd "$(dirname "$0")" && pwd)/validate-sarif
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
check() { if eval "$2"; then :; else echo "FAIL: $1"; fail=1; fi; }
gen() { python3 "$root/scripts/eventlog/gen_eventlog.py" "$@"; }

gen "$tmp/skew.log" --stages 3 --tasks 200 --skew-stage 1
gen "$tmp/fixed.log" --stages 3 --tasks 200
gen "$tmp/tiny.log" --stages 1 --tasks 4000 --task-ms 50

"$planlint" eventlog "$tmp/skew.log" >"$tmp/out.txt"; rc=$?
check "skew exits 1" "[[ $rc -eq 1 ]]"
check "text names the rule, the stage and its call site" \
  "grep -q 'task-skew \[SPK901\]' $tmp/out.txt && grep -q 'stage 1 (collect at /jobs/etl.py:41)' $tmp/out.txt && grep -q 'code: /jobs/etl.py:41' $tmp/out.txt"
check "text prints the spread" "grep -q 'p25' $tmp/out.txt && grep -q 'Slowest stages' $tmp/out.txt"
"$planlint" eventlog "$tmp/fixed.log" >"$tmp/out.txt"; rc=$?
check "clean log exits 0 and says so" "[[ $rc -eq 0 ]] && grep -q 'No diagnosis' $tmp/out.txt"
"$planlint" eventlog --exit-zero "$tmp/skew.log" >/dev/null; rc=$?
check "--exit-zero" "[[ $rc -eq 0 ]]"

"$planlint" eventlog --format markdown "$tmp/skew.log" >"$tmp/out.md"
check "markdown has a table and a heading" "grep -q '^| stage | name' $tmp/out.md && grep -q '^## ' $tmp/out.md"
"$planlint" eventlog --format json "$tmp/skew.log" >"$tmp/out.json"
check "json is versioned and has the finding with its time" \
  "python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); a=d[\"applications\"][0]; f=a[\"findings\"][0]; assert d[\"version\"]==1 and f[\"rule\"]==\"task-skew\" and f[\"stage\"]==1 and f[\"explained_ms\"]>10000, f; assert [e[\"cores\"] for e in a[\"executor_timeline\"]]==[8,16]' $tmp/out.json"
"$planlint" eventlog --format sarif -o "$tmp/out.sarif" "$tmp/skew.log" "$tmp/tiny.log"; rc=$?
check "sarif written, exit 1" "[[ $rc -eq 1 && -s $tmp/out.sarif ]]"
if [[ -x "$validate" ]]; then check "sarif validates" "'$validate' $tmp/out.sarif >/dev/null"; fi
mkdir -p "$tmp/src/jobs" && printf 'x = 1\n' >"$tmp/src/jobs/etl.py"
"$planlint" eventlog --format sarif --source-root "$tmp/src" "$tmp/skew.log" >"$tmp/src.sarif"
check "with --source-root the SARIF finding is in the source file" "grep -q 'jobs/etl.py' $tmp/src.sarif"
"$planlint" eventlog --format html -o "$tmp/out.html" "$tmp/skew.log"
check "html is one page with a timeline and histograms" \
  "grep -q '<svg' $tmp/out.html && grep -q 'stage timeline' $tmp/out.html && grep -q 'task durations of stage' $tmp/out.html && ! grep -q '<script' $tmp/out.html"

mkdir -p "$tmp/history" && cp "$tmp/skew.log" "$tmp/tiny.log" "$tmp/fixed.log" "$tmp/history/" && echo notes >"$tmp/history/README"
"$planlint" eventlog -j 2 "$tmp/history" >"$tmp/rank.txt"; rc=$?
check "a directory of logs is ranked (README skipped)" \
  "[[ $rc -eq 1 ]] && grep -q 'Applications ranked' $tmp/rank.txt && [[ \$(grep -c 'history/' $tmp/rank.txt) -ge 3 ]] && ! grep -q README $tmp/rank.txt"
check "the log with the most explained time ranks first" "grep -m1 -E '^ +1 ' $tmp/rank.txt | grep -q skew.log"

"$planlint" eventlog --compare "$tmp/skew.log" "$tmp/fixed.log" --dbu-rate 1.5 >"$tmp/cmp.txt"; rc=$?
check "compare prints the table and the estimate" \
  "[[ $rc -eq 0 ]] && grep -q 'total time' $tmp/cmp.txt && grep -q 'max task' $tmp/cmp.txt && grep -q 'DBUs per run (before)' $tmp/cmp.txt && grep -q 'estimate' $tmp/cmp.txt"
"$planlint" eventlog --compare "$tmp/skew.log" "$tmp/fixed.log" >"$tmp/cmp.txt"
check "compare without a rate says how to get the cost" "grep -q -- '--dbu-rate' $tmp/cmp.txt"
# A plan that changed (a broadcast in place of a sort-merge join: other stages, other ids) on more input.
gen "$tmp/before.log" --stages 3 --tasks 200 --smj-bytes 20000000000,2000000
gen "$tmp/after.log" --stages 2 --tasks 400 --broadcast-bytes 2000000 --conf spark.sql.autoBroadcastJoinThreshold=50m
"$planlint" eventlog --compare "$tmp/before.log" "$tmp/after.log" --dbu-rate 1.5 >"$tmp/cmp.txt"; rc=$?
check "compare matches the work whose plan changed, not stage ids, and names the change" \
  "[[ $rc -eq 0 ]] && grep -q 'synthetic query .* 3 -> 2 .* SortMergeJoin -> BroadcastHashJoin' $tmp/cmp.txt && ! grep -q 'only before\|only after' $tmp/cmp.txt"
check "compare shows the configuration that changed and the input each run read" \
  "grep -q 'spark.sql.autoBroadcastJoinThreshold: (not set) -> 50m' $tmp/cmp.txt && grep -q 'input read .*600.0 MiB .*800.0 MiB' $tmp/cmp.txt"
check "runs on different inputs are compared per GiB, not called dearer per run" \
  "grep -q 'compare per GiB read' $tmp/cmp.txt && grep -q 'DBUs per GiB read' $tmp/cmp.txt && ! grep -q 'costs more DBUs than it saves' $tmp/cmp.txt"

"$planlint" "$tmp/skew.log" >"$tmp/plain.txt"; rc=$?
check "plain planlint recognises an event log" "[[ $rc -eq 1 ]] && grep -q 'task-skew' $tmp/plain.txt"

printf 'not a log\n' >"$tmp/notes.txt"
"$planlint" eventlog "$tmp/notes.txt" "$tmp/skew.log" >"$tmp/out.txt" 2>"$tmp/err.txt"; rc=$?
check "an unreadable log is exit 2 naming it, the other still diagnosed" \
  "[[ $rc -eq 2 ]] && grep -q 'notes.txt: no Spark listener event' $tmp/err.txt && grep -q task-skew $tmp/out.txt"
"$planlint" eventlog "$tmp/missing.zstd" 2>"$tmp/err.txt"; rc=$?
check "a missing log is exit 2" "[[ $rc -eq 2 ]] && grep -q 'missing.zstd' $tmp/err.txt"
"$planlint" eventlog --threshold skew-ratio=50 "$tmp/skew.log" >/dev/null; rc=$?
check "--threshold raises the bar" "[[ $rc -eq 0 ]]"
"$planlint" eventlog --threshold bogus=1 "$tmp/skew.log" 2>"$tmp/err.txt"; rc=$?
check "--threshold with an unknown key is a usage error" "[[ $rc -eq 2 ]] && grep -q 'unknown threshold' $tmp/err.txt"
for key in $("$planlint" eventlog --help | tr -d '\n' | grep -o 'KEY=VALUE ([^)]*)' | sed 's/KEY=VALUE (//; s/)//; s/,//g'); do
  "$planlint" eventlog --exit-zero --threshold "$key=5" "$tmp/fixed.log" >/dev/null 2>&1 || { echo "FAIL: --threshold $key (listed in --help) refused"; fail=1; }
done
"$planlint" eventlog --format json "$tmp/skew.log" -o /dev/full 2>/dev/null; rc=$?
check "a failed report write is exit 2" "[[ $rc -eq 2 ]]"

E=$corpus/eventlogs
# Straggler or skew: the advice follows what the slow task read and how much of its time was CPU.
gen "$tmp/strag.log" --stages 2 --tasks 200 --straggler-stage 1 --speculate
"$planlint" eventlog "$tmp/strag.log" >"$tmp/out.txt"
check "a straggler is named as one, with its host and speculative copy, and gets no salting advice" \
  "grep -q 'waited for a straggler' $tmp/out.txt && grep -q 'on executor 2 on host-2' $tmp/out.txt && grep -q '1 speculative copy' $tmp/out.txt && ! grep -q 'salt it' $tmp/out.txt && ! grep -q 'failed-stages' $tmp/out.txt"
"$planlint" eventlog "$tmp/skew.log" >"$tmp/out.txt"
check "data skew is named as one, with the records the slow task read" \
  "grep -q 'it read 20000 shuffle records against a median of 1000 (20.0x): data skew' $tmp/out.txt && grep -q 'salt it' $tmp/out.txt"
gen "$tmp/input.log" --stages 2 --tasks 200 --input-skew-stage 0
"$planlint" eventlog "$tmp/input.log" >"$tmp/out.txt"
check "uneven input splits are told from a hot key, and the advice is about the files" \
  "grep -q 'it read 2000 input records against a median of 100 (20.0x): the input is split unevenly' $tmp/out.txt && grep -q 'unsplittable' $tmp/out.txt && ! grep -q 'salt it' $tmp/out.txt"
# Failures: every reason printed whole, grouped, with where they happened.
gen "$tmp/fail.log" --stages 2 --tasks 200 --fail-stage 1 --fail-host host-2
"$planlint" eventlog "$tmp/fail.log" >"$tmp/out.txt"
check "failed tasks are grouped by reason, with the executor and host" \
  "grep -q '20 failed: java.lang.OutOfMemoryError: Java heap space \[20 on executor 2 (host host-2)\]' $tmp/out.txt"
gen "$tmp/batches.log" --stages 4 --tasks 50 --same-name --fail-stage 1 --fail-stage 2 --fail-stage 3
"$planlint" eventlog --format json "$tmp/batches.log" >"$tmp/out.json"
check "stages that failed the same way are one finding that lists them" \
  "python3 -c 'import json,sys; f=[x for x in json.load(open(sys.argv[1]))[\"applications\"][0][\"findings\"] if x[\"rule\"]==\"failed-stages\"]; assert len(f)==1, f; assert \"2 more stages failed the same way (2, 3)\" in f[0][\"message\"], f' $tmp/out.json"
gen "$tmp/waves.log" --stages 2 --tasks 2000 --skew-stage 1
"$planlint" eventlog "$tmp/waves.log" >"$tmp/out.txt"
check "a slow task the stage did not wait for (many waves) is not said to be waited for" \
  "grep -q 'had slow tasks it did not wait for' $tmp/out.txt && ! grep -q 'task-skew.*explains' $tmp/out.txt"
gen "$tmp/retried.log" --stages 2 --tasks 200 --retried-stage 1
"$planlint" eventlog "$tmp/retried.log" >"$tmp/out.txt"
check "failures that retries mended are called transient, with the Python exception, not 'retries will not help'" \
  "grep -q 'PythonException: ConnectionResetError' $tmp/out.txt && grep -q 'transient fault' $tmp/out.txt && ! grep -q 'retries will not help' $tmp/out.txt"
gen "$tmp/spill.log" --stages 3 --tasks 200 --shuffle-gb 0.5 --spill-stage 1
"$planlint" eventlog "$tmp/spill.log" >"$tmp/out.txt"
check "a spill in an RDD stage (no SQL execution) gets the RDD call's partitions, not AQE" \
  "grep -q 'numPartitions' $tmp/out.txt && ! grep -q 'AQE.s coalescing' $tmp/out.txt"
# A partition count the code asked for: change the call, not the setting.
gen "$tmp/parts.log" --stages 2 --tasks 4 --shuffle-gb 40 --broadcast-bytes 5000000
"$planlint" eventlog "$tmp/parts.log" >"$tmp/out.txt"
check "a partition count the code asked for says so, and the fix is the call" \
  "grep -q 'the code asked for 4' $tmp/out.txt && grep -q 'change the partition count the code asks for' $tmp/out.txt"
gen "$tmp/rddparts.log" --stages 2 --tasks 4 --shuffle-gb 40
"$planlint" eventlog "$tmp/rddparts.log" >"$tmp/out.txt"
check "an RDD stage's partition count is the RDD call's, not spark.sql.shuffle.partitions" \
  "grep -q 'an RDD stage' $tmp/out.txt && grep -q 'groupByKey(' $tmp/out.txt && ! grep -q 'set spark.sql.shuffle.partitions' $tmp/out.txt"
# A message never contradicts the log: a run that turned broadcasts off is told so.
gen "$tmp/nobc.log" --stages 2 --tasks 100 --smj-bytes 20000000000,2000000 --conf spark.sql.autoBroadcastJoinThreshold=-1
"$planlint" eventlog "$tmp/nobc.log" >"$tmp/out.txt"
check "missing-broadcast on a run with broadcasts off says so" \
  "grep -q 'this run turned automatic broadcasts off (spark.sql.autoBroadcastJoinThreshold=-1)' $tmp/out.txt && ! grep -q 'under this run.s broadcast threshold' $tmp/out.txt"
gen "$tmp/twice.log" --stages 2 --tasks 100 --smj-bytes 20000000000,2000000 --sql-plan "$root/fixtures/rules/missing-broadcast/bad_final_plan_small_stage.plan"
"$planlint" eventlog --format json "$tmp/twice.log" >"$tmp/out.json"
check "a join judged from its measured sizes is not reported again from the plan text" \
  "python3 -c 'import json,sys; f=[x for x in json.load(open(sys.argv[1]))[\"applications\"][0][\"findings\"] if x[\"rule\"]==\"missing-broadcast\"]; assert len(f)==1 and \"measured\" in f[0][\"message\"], f' $tmp/out.json"
# What if: the tasks replayed on other cluster sizes.
"$planlint" eventlog --what-if executors=1,2,4 --dbu-rate 2 "$tmp/fixed.log" >"$tmp/out.txt"; rc=$?
check "--what-if prints a table of sizes with the run's own, its error and the critical path" \
  "[[ $rc -eq 0 ]] && grep -q 'What if the cluster were another size' $tmp/out.txt && grep -q 'as run' $tmp/out.txt && grep -q 'Critical path' $tmp/out.txt && grep -q '^  executors task slots wall time' $tmp/out.txt"
"$planlint" eventlog --format json --what-if executors=1,2,4 "$tmp/fixed.log" >"$tmp/out.json"
check "json has the simulation: fewer executors never faster, the run's size within 10 %" \
  "python3 -c 'import json,sys; s=json.load(open(sys.argv[1]))[\"applications\"][0][\"simulation\"]; w=[r[\"wall_ms\"] for r in s[\"what_if\"]]; assert [r[\"executors\"] for r in s[\"what_if\"]]==[1,2,4], s; assert w==sorted(w, reverse=True), w; assert abs(s[\"simulated_ms\"]-s[\"measured_ms\"]) <= 0.1*s[\"measured_ms\"], s; assert s[\"critical_path_ms\"] <= s[\"simulated_ms\"], s' $tmp/out.json"
"$planlint" eventlog --what-if executors=4 --compare "$tmp/fixed.log" "$tmp/skew.log" >/dev/null 2>"$tmp/err.txt"; rc=$?
check "--what-if with --compare is a usage error, not ignored" "[[ $rc -eq 2 ]] && grep -q 'not with --compare' $tmp/err.txt"
for bad in executors=0 executors= cores=4 executors=4,x; do
  "$planlint" eventlog --what-if "$bad" "$tmp/fixed.log" >/dev/null 2>"$tmp/err.txt"; rc=$?
  check "--what-if $bad is a usage error" "[[ $rc -eq 2 ]] && grep -q 'expected executors=N' $tmp/err.txt"
done

R=$E/spark-rapids-tools/core/src/test/resources
if [[ -d "$E" ]]; then
  "$planlint" eventlog "$R/spark-events-profiling/driverlog" >/dev/null 2>"$tmp/err.txt"; rc=$?
  check "the driver log is not an event log (exit 2, named)" "[[ $rc -eq 2 ]] && grep -q 'driverlog: no Spark listener event' $tmp/err.txt"
  "$planlint" eventlog "$R/spark-events-profiling/malformed_json_eventlog.zstd" >"$tmp/out.txt"
  check "the malformed line is reported at its line" "grep -q 'malformed_json_eventlog.zstd:4' $tmp/out.txt && grep -q eventlog-syntax $tmp/out.txt"
  "$planlint" eventlog "$R/spark-events-profiling/tasks_executors_fail_compressed_eventlog.zstd" >"$tmp/out.txt"
  check "the failure log reports failed tasks" "grep -q 'failed-stages' $tmp/out.txt && grep -q 'task attempts failed' $tmp/out.txt"
  "$planlint" eventlog "$R/spark-events-qualification/nds_q88_photon_db_13_3.zstd" >"$tmp/out.txt"
  check "Photon is recognised" "grep -q 'engine photon' $tmp/out.txt && grep -q 'Databricks runtime 13.3' $tmp/out.txt"
  "$planlint" eventlog "$R/spark-events-profiling/gpu_oom_eventlog.zstd" >"$tmp/out.txt"
  check "RAPIDS (GPU) is recognised" "grep -q 'engine rapids' $tmp/out.txt"
  "$planlint" eventlog -j 2 --format json "$E" >"$tmp/all.json" 2>"$tmp/err.txt"; rc=$?
  check "the whole corpus is read without an error (the driver log in it is not taken for a log)" \
    "[[ $rc -eq 1 ]] && [[ ! -s $tmp/err.txt ]] && python3 -c 'import json,sys; assert len(json.load(open(sys.argv[1]))[\"applications\"]) >= 75' $tmp/all.json"
  check "Spark's own History Server figures for its test logs are planlint's" \
    "python3 '$root/tests/eventlog_spark_expect.py' '$planlint' '$corpus' >$tmp/spark.txt || { cat $tmp/spark.txt; false; }"
  check "the what-if simulation of each log's own cluster is within 10 % of its duration on 90 % of the logs" \
    "python3 '$root/tests/eventlog_whatif_check.py' '$planlint' '$E' >$tmp/whatif.txt || { cat $tmp/whatif.txt; false; }"
  check "per-stage figures match an independent computation" \
    "python3 '$root/tests/eventlog_figures.py' '$planlint' '$E/dr-elephant/test/resources/spark_event_logs/event_log_1' '$E/sparklint/docs/spark_summit_euro_2016/event_logs/application_1472176676028_407508_1' '$E/gluten-qualification-tool/tools/qualification-tool/src/test/resources/event-files/local-unsupported' '$R/spark-events-qualification/nds_q72_dataproc_2_2.zstd' '$R/spark-events-profiling/tasks_executors_fail_compressed_eventlog.zstd' >$tmp/fig.txt || { cat $tmp/fig.txt; false; }"
else
  echo "skip: the real-log checks need ../shared/corpus (not found: $corpus)"
  [ -z "${PLANLINT_REQUIRE_SHARED:-}" ] || { echo "FAIL: PLANLINT_REQUIRE_SHARED"; fail=1; }
fi
[[ $fail -eq 0 ]] && echo "eventlog CLI: all checks passed"
exit $fail
