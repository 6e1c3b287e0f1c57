#!/usr/bin/env bash
# Command-line behaviour: exit codes, stdin, -o, formats, selection, errors that name the file.
set -uo pipefail
planlint=$1 fixtures=$2 corpus=$3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
source "$(dirname "$0")/lib.sh"

bad=$fixtures/rules/python-row-udf/bad_batch_eval_python_formatted.plan
good=$fixtures/rules/python-row-udf/ok_pandas_and_builtin.plan

check "clean file exits 0" 0 "$planlint" "$good"
contains "clean file says so" out "All checks passed."
check "findings exit 1" 1 "$planlint" "$bad"
contains "text format file:line:col severity message [rule]" out "bad_batch_eval_python_formatted.plan:4:4: warning: row-at-a-time Python UDF multiply_by_two"
contains "text format names the rule" out "[python-row-udf]"
contains "text format underlines the operator" out "^~~~~~~~~~~~~~"
contains "text format shows the fix" out "fix: Use a built-in or a pandas UDF"
check "no colour into a pipe" 1 "$planlint" "$bad"
if grep -q $'\x1b\[' "$work/out"; then echo "FAIL colour escapes in piped output"; fails=$((fails+1)); else echo "ok   no colour in pipe"; fi
check "--color always colours" 1 "$planlint" --color always "$bad"
if grep -q $'\x1b\[' "$work/out"; then echo "ok   colour on request"; else echo "FAIL no colour with --color always"; fails=$((fails+1)); fi
check "--exit-zero" 0 "$planlint" --exit-zero "$bad"
check "missing file exits 2 and names it" 2 "$planlint" "$work/nope.plan" "$bad"
contains "missing file error" err "nope.plan: no such file or directory"
contains "other files still linted after an I/O error" out "[python-row-udf]"
check "unknown option exits 2" 2 "$planlint" --frobnicate "$bad"
check "unknown rule selector exits 2" 2 "$planlint" --select no-such-rule "$bad"
contains "unknown selector named" err "no-such-rule"
check "--ignore by name" 0 "$planlint" --ignore python-row-udf "$bad"
check "--ignore by id" 0 "$planlint" --ignore SPK201 "$bad"
check "--select other rule" 0 "$planlint" --select cartesian-join "$bad"
check "stdin with --stdin-filename" 1 bash -c "\"$planlint\" - --stdin-filename job/q1.plan < \"$bad\""
contains "stdin file name used" out "job/q1.plan:4:4:"
check "json format" 1 "$planlint" --format json "$bad"
python3 - "$work/out" <<'PY' || fails=$((fails+1))
import json, sys
d = json.load(open(sys.argv[1]))
assert d["version"] == 1
x = d["diagnostics"][0]
assert x["rule"] == {"id": "SPK201", "name": "python-row-udf"}, x["rule"]
assert (x["line"], x["column"], x["end_line"]) == (4, 4, 4)
assert x["fix"]["applicability"] == "display-only" and x["fix"]["suggestion"]
assert len(x["fingerprint"]) == 16
print("ok   json schema fields")
PY
check "github format" 1 "$planlint" --format github "$bad"
contains "github annotation" out "::warning file="
contains "github annotation title" out "title=python-row-udf (SPK201)::"
check "-o writes the file" 1 "$planlint" -o "$work/report.txt" "$bad"
contains "-o leaves stdout empty" report.txt "[python-row-udf]"
[ ! -s "$work/out" ] && echo "ok   stdout empty with -o" || { echo "FAIL stdout not empty with -o"; fails=$((fails+1)); }
check "-o into a missing directory exits 2" 2 "$planlint" -o "$work/no/dir/r.txt" "$bad"
check "directory argument is walked" 1 "$planlint" --statistics "$fixtures/rules"
contains "statistics per rule" out "python-row-udf"
check "syntax errors are findings with a position" 1 "$planlint" "$fixtures/rules/plan-syntax/bad_lines_recovered.plan"
contains "syntax error position" out "bad_lines_recovered.plan:6:7: error: expected an operator name"
check "--version" 0 "$planlint" --version
contains "version text" out "planlint 0."
check "--help" 0 "$planlint" --help
contains "help explains exit codes" out "Exit status: 0 no findings (or only advisory ones), 1 findings, 2 usage, configuration or I/O error."
contains "help says info is advisory" out "Info findings are advisory"
check "rules list" 0 "$planlint" rules
contains "rules list has names" out "redundant-shuffle"
check "rules json" 0 "$planlint" rules --format json
check "rule doc" 0 "$planlint" rule missing-broadcast
contains "rule doc headings" out "## Why is this bad?"
check "unknown rule doc" 2 "$planlint" rule nope
check "parse dump" 0 "$planlint" parse "$bad"
contains "parse dump tree" out "BatchEvalPython @4:4 kind=python_eval"
check "parse dump json" 0 "$planlint" parse "$bad" --dump json
contains "parse dump json is JSON" out '"plans": ['
check "parse --dump alone is the text tree" 0 "$planlint" parse "$bad" --dump
contains "parse --dump text tree" out "BatchEvalPython @4:4 kind=python_eval"
# Garbage from a fixed seed: random bytes would, one run in a few hundred, start with '#' and be read
# as a one-line Python comment (no findings, exit 0).
garbage() { python3 -c 'import random, sys; r = random.Random(20261203); sys.stdout.buffer.write(bytes(r.choice([b for b in range(256) if b not in (10, 35)]) for _ in range(4096)))'; }
check "binary garbage does not crash" 1 bash -c "$(declare -f garbage); garbage | \"$planlint\" - --quiet"
check "empty input is clean" 0 bash -c "\"$planlint\" - < /dev/null"
if [ -d "$corpus" ]; then
  check "whole corpus lints without error exit" 1 "$planlint" --quiet --statistics "$corpus/plans"
else
  echo "skip (one check): the whole corpus needs ../shared/corpus (not found: $corpus)"
  [ -z "${PLANLINT_REQUIRE_SHARED:-}" ] || { echo "FAIL: PLANLINT_REQUIRE_SHARED"; fails=$((fails+1)); }
fi

nb=$fixtures/source/notebooks/bad_pretty.ipynb
check "notebook findings" 1 "$planlint" "$nb"
contains "notebook text names the cell" out "bad_pretty.ipynb:cell 3:3:17: warning:"
contains "notebook quotes the cell line" out 'counts = orders.repartition("k", "day").groupBy("k").count()'
check "notebook json" 1 "$planlint" --format json "$nb"
python3 - "$work/out" <<'PY' || fails=$((fails+1))
import json, sys
d = json.load(open(sys.argv[1]))["diagnostics"]
x = [e for e in d if e["rule"]["name"] == "redundant-shuffle"][0]
assert (x["cell"], x["cell_line"], x["cell_column"]) == (3, 3, 17), x
print("ok   json cell fields")
PY
check "python file via stdin name" 1 bash -c "printf 'rows = spark.table(\"t\").join(spark.table(\"u\"), \"k\").collect()\\n' | \"$planlint\" - --fail-on info --stdin-filename job.py"
contains "stdin python linted as python" out "job.py:1:53: info"
check "syntax error in one file, others still linted" 1 "$planlint" "$fixtures/source/python-syntax/bad_unbalanced.py" "$fixtures/source/cartesian-join/bad_cross.py"
contains "syntax error reported" out "bad_unbalanced.py:3:7: error"
contains "other file linted" out "[cartesian-join]"

python3 -c "
lines = ['Project [a#1]'] + [' ' * (3 * i) + '+- Filter (a#1 > 0)' for i in range(3000)]
open('$work/deep.plan', 'w').write(chr(10).join(lines) + chr(10))"
check "3000-deep plan lints" 0 "$planlint" -q "$work/deep.plan"
check "3000-deep plan dumps as text" 0 "$planlint" parse "$work/deep.plan"
check "3000-deep plan dumps as JSON" 0 "$planlint" parse "$work/deep.plan" --dump json

python3 -c "
open('$work/deep.py', 'w').write('x = ' + 'f(' * 50000 + ')' * 50000 + chr(10) + 'y = a' + '.b()' * 50000 + chr(10))"
check "50000-deep Python nesting does not crash" 1 "$planlint" -q "$work/deep.py"
contains "the depth limit is said" out "deep.py:1:801: warning: code nested more than 400 levels deep"
: > "$work/empty.ipynb"
check "empty notebook is a finding, not a crash" 1 "$planlint" "$work/empty.ipynb"
contains "empty notebook error" out "empty.ipynb:1:1: error: not a Jupyter notebook"

echo "$fails failed"
[ "$fails" = 0 ]
