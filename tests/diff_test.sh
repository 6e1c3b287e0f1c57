#!/usr/bin/env bash
# planlint diff from the command line: the goldens in fixtures/diff (text output and exit status),
# every output format (JSON parses, SARIF validates), selection and --fail-on, unreadable inputs,
# and real pairs of plans from ../shared/corpus read in place.
# usage: diff_test.sh PLANLINT FIXTURES_DIR CORPUS_DIR VALIDATE_SARIF [--update]
set -uo pipefail
planlint=$1 fixtures=$2 corpus=$3 validate=$4 update=${5:-}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
source "$(dirname "$0")/lib.sh"

cd "$fixtures/diff"
for before in *.before.txt; do
  name=${before%.before.txt}
  { "$planlint" diff --color never "$before" "$name.after.txt"; echo "exit $?"; } >"$work/$name.got" 2>&1
  if [ "$update" = --update ]; then cp "$work/$name.got" "$name.expected"; continue; fi
  if diff -u "$name.expected" "$work/$name.got" >"$work/golden.diff"; then
    echo "ok   golden $name"
  else
    echo "FAIL golden $name"; head -40 "$work/golden.diff"; fails=$((fails+1))
  fi
done

check "no plan change exits 0" 0 "$planlint" diff unchanged.before.txt unchanged.after.txt
contains "no plan change says so" out "No plan change."
check "a regression exits 1" 1 "$planlint" diff lost-broadcast.before.txt lost-broadcast.after.txt
contains "the summary counts the regressions" out "3 findings, 3 failing the diff."
check "improvements alone exit 0" 0 "$planlint" diff forced-broadcast.before.txt forced-broadcast.after.txt
check "--fail-on info counts improvements" 1 "$planlint" diff --fail-on info forced-broadcast.before.txt forced-broadcast.after.txt
check "--warn keeps a rule from failing" 0 "$planlint" diff --warn join-strategy-regressed,shuffle-added \
  lost-broadcast.before.txt lost-broadcast.after.txt
contains "--warn still reports" out "[join-strategy-regressed]"
check "--ignore drops a rule" 1 "$planlint" diff --ignore shuffle-added lost-broadcast.before.txt lost-broadcast.after.txt
lacks "--ignore: no shuffle-added" out "[shuffle-added]"
check "--select a family" 1 "$planlint" diff --select SPK703 lost-broadcast.before.txt lost-broadcast.after.txt
contains "--select: the selected rule" out "1 finding, 1 failing the diff."
check "--exit-zero" 0 "$planlint" diff --exit-zero lost-broadcast.before.txt lost-broadcast.after.txt
check "unknown selector is a usage error" 2 "$planlint" diff --select no-such-rule unchanged.before.txt unchanged.after.txt
check "a missing BEFORE is exit 2" 2 "$planlint" diff "$work/missing.txt" unchanged.after.txt
contains "the error names the file" err "$work/missing.txt"
check "stdin as BEFORE" 1 bash -c "'$planlint' diff - lost-broadcast.after.txt < lost-broadcast.before.txt"
check "stdin for both sides is a usage error" 2 bash -c "'$planlint' diff - - < unchanged.before.txt"
contains "stdin twice is explained" err "only one of BEFORE and AFTER"
check "help explains the subcommand" 0 "$planlint" diff --help
contains "help names the formats" out "markdown"

# Formats: the same findings in each.
check "json" 1 "$planlint" diff --format json -o "$work/d.json" lost-broadcast.before.txt lost-broadcast.after.txt
python3 - "$work/d.json" <<'PY' && echo "ok   json lists the findings" || { echo "FAIL json"; fails=$((fails+1)); }
import json, sys
d = json.load(open(sys.argv[1]))
rules = sorted(x["rule"]["name"] for x in d["diagnostics"])
assert rules == ["join-strategy-regressed", "shuffle-added", "shuffle-added"], rules
assert all(x["file"] == "lost-broadcast.after.txt" for x in d["diagnostics"])
PY
check "sarif" 1 "$planlint" diff --format sarif -o "$work/d.sarif" lost-broadcast.before.txt lost-broadcast.after.txt
if bash "$validate" "$work/d.sarif" >"$work/v.out" 2>&1; then echo "ok   sarif validates"; else
  echo "FAIL sarif validates"; cat "$work/v.out"; fails=$((fails+1)); fi
python3 - "$work/d.sarif" <<'PY' && echo "ok   sarif has the rules and the BEFORE location" || { echo "FAIL sarif content"; fails=$((fails+1)); }
import json, sys
run = json.load(open(sys.argv[1]))["runs"][0]
ids = {r["ruleId"] for r in run["results"]}
assert ids == {"SPK701", "SPK703"}, ids
j = [r for r in run["results"] if r["ruleId"] == "SPK703"][0]
rel = j["relatedLocations"][0]["physicalLocation"]
assert rel["artifactLocation"]["uri"] == "lost-broadcast.before.txt", rel
PY
check "github" 1 "$planlint" diff --format github lost-broadcast.before.txt lost-broadcast.after.txt
contains "github annotation" out "::warning file=lost-broadcast.after.txt,line=7,col=16"
check "markdown" 1 "$planlint" diff --format markdown lost-broadcast.before.txt lost-broadcast.after.txt
contains "markdown summary" out "Plan changed:"
contains "markdown table" out "| warning | lost-broadcast.after.txt:7:16 | join-strategy-regressed (SPK703) |"
check "markdown of no change" 0 "$planlint" diff --format markdown unchanged.before.txt unchanged.after.txt
contains "markdown says no change" out "No plan change."

# Real plans, read in place: Spark versions of one TPC-DS query, and one query before and after AQE.
if [ ! -d "$corpus" ]; then
  echo "skip (the rest): real plans need ../shared/corpus (not found: $corpus)"
  [ -z "${PLANLINT_REQUIRE_SHARED:-}" ] || { echo "FAIL: PLANLINT_REQUIRE_SHARED"; fails=$((fails+1)); }
  finish
  exit 0
fi
tpcds=$corpus/plans/spark-tpcds
check "TPC-DS q64 across versions" 1 "$planlint" diff --format json \
  "$tpcds/hyperspace-copy-2021-03/approved-plans-v1_4/q64/explain.txt" \
  "$tpcds/comet-plugin-variant-454ca68/approved-plans-v1_4/q64/explain.txt"
python3 - "$work/out" <<'PY' && echo "ok   q64: broadcast joins that became sort-merge joins" || { echo "FAIL q64"; fails=$((fails+1)); }
import json, sys
d = json.load(open(sys.argv[1]))
lines = sorted(x["line"] for x in d["diagnostics"] if x["rule"]["name"] == "join-strategy-regressed")
assert lines == [6, 42, 60, 145], lines
PY
ev=$corpus/plans/eventlog-extracted/spark-rapids-tools__qualification__aqeshuffle_eventlog__exec0
check "before and after AQE: no regression" 0 "$planlint" diff "$ev-start-01.txt" "$ev-aqeupdate-04.txt"
contains "AQE adds its stages" out "Plan changed: 5 operators added, 0 removed"

# Two event logs: their SQL executions' plans, paired by call site, located at the AFTER log's lines.
logs=$corpus/eventlogs/spark-rapids-tools/core/src/test/resources/spark-events-profiling
check "an event log against itself" 0 "$planlint" diff "$logs/eventlog_dsv1.zstd" "$logs/eventlog_dsv1.zstd"
contains "event log: no plan change" out "No plan change."
check "DataSource v1 and v2 runs of one job" 0 "$planlint" diff --format json "$logs/eventlog_dsv1.zstd" "$logs/eventlog_dsv2.zstd"
python3 - "$work/out" <<'PY' && echo "ok   event logs: findings at the AFTER log's execution lines" || { echo "FAIL event-log diff"; fails=$((fails+1)); }
import json, sys
d = json.load(open(sys.argv[1]))["diagnostics"]
assert d and all(x["file"].endswith("eventlog_dsv2.zstd") for x in d), d
assert all("(SQL execution " in x["message"] for x in d)
assert {x["rule"]["name"] for x in d} == {"new-table-scan"}, d
PY
check "DataSource v1 and v2: summary" 0 "$planlint" diff "$logs/eventlog_dsv1.zstd" "$logs/eventlog_dsv2.zstd"
contains "event-log summary counts executions" out "over 9 SQL executions (7 before)"
check "an event log against a plan file is a usage error" 2 "$planlint" diff "$logs/eventlog_dsv1.zstd" unchanged.after.txt
contains "mixed inputs are explained" err "diff compares two plan files or two event logs"

# Hostile shapes (generated here): 2,000 nested operators and a chain of 1,000 joins, each against a
# copy with every id renumbered. Linear work: they finish (the timeout is a hang guard, not a timing).
python3 - "$work" <<'PY'
import re, sys
w = sys.argv[1]
scan = lambda t: (f"FileScan parquet db.t{t}[k#{t}] Batched: true, DataFilters: [], Format: Parquet, "
                  f"Location: InMemoryFileIndex[file:/t{t}], PartitionFilters: [], PushedFilters: [], ReadSchema: struct<k:int>")
deep = ["== Physical Plan =="] + ["   " * i + ("+- " if i else "") + f"Filter (k#{i} > {i})" for i in range(2000)]
deep.append("   " * 2000 + "+- " + scan(1))
wide = ["== Physical Plan =="]
for i in range(1000):
    wide.append(("" if i == 0 else ":  " * (i - 1) + ":- ") + f"BroadcastHashJoin [k#{i}], [k#{i + 1}], Inner, BuildRight, false")
wide.append(":  " * 999 + ":- " + scan(0))
for i in range(999, -1, -1):
    wide.append(":  " * i + "+- BroadcastExchange HashedRelationBroadcastMode(List(input[0, int, false]),false), [plan_id=1]")
    wide.append(":  " * i + "   +- " + scan(i + 1))
for name, lines in (("deep", deep), ("wide", wide)):
    text = "\n".join(lines) + "\n"
    open(f"{w}/{name}.txt", "w").write(text)
    open(f"{w}/{name}2.txt", "w").write(re.sub(r"#(\d+)", lambda m: "#9" + m.group(1), text))
PY
for shape in deep wide; do
  check "$shape plan against itself renumbered" 0 timeout 120 "$planlint" diff "$work/$shape.txt" "$work/${shape}2.txt"
  contains "$shape: no plan change" out "No plan change."
  check "$shape plan as html" 0 timeout 120 "$planlint" diff --format html -o "$work/$shape.html" "$work/$shape.txt" "$work/${shape}2.txt"
done
finish
