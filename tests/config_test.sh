#!/usr/bin/env bash
# Configuration discovery and errors, per-file ignores, excludes, baselines (with renumbered ids and
# moved lines), and parallel runs giving the same output as serial ones.
set -uo pipefail
planlint=$1 fixtures=$2 corpus=$3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fails=0
ok() { echo "ok   $1"; }
bad() { echo "FAIL $1"; fails=$((fails+1)); }
cd "$work"
mkdir -p repo/jobs/nightly repo/.venv/lib repo/generated
cp "$fixtures/source/collect-large/bad_collect.py" repo/jobs/nightly/collect.py
cp "$fixtures/source/cartesian-join/bad_cross.py" repo/jobs/cross.py
cp "$fixtures/source/cartesian-join/bad_cross.py" repo/.venv/lib/vendored.py
cp "$fixtures/source/cartesian-join/bad_cross.py" repo/generated/gen.py
cat > repo/pyproject.toml <<'TOML'
[project]
name = "demo"

[tool.planlint]
ignore = ["cartesian-join"]
exclude = ["generated"]
TOML

"$planlint" --statistics --fail-on info repo >out 2>&1; rc=$?
[ $rc = 1 ] && grep -q "SPK203  collect-large" out && ! grep -q cartesian out && ok "pyproject [tool.planlint] applies" || { bad "pyproject config (rc $rc)"; cat out; }
"$planlint" --statistics --isolated repo/jobs >out 2>&1
grep -q "2  SPK104  cartesian-join" out && ok "--isolated ignores configuration" || { bad "--isolated"; cat out; }
"$planlint" --statistics --isolated repo >out 2>&1
grep -q "4  SPK104  cartesian-join" out && ok ".venv skipped by default" || { bad ".venv skip"; cat out; }
"$planlint" --isolated repo/generated/gen.py >/dev/null 2>&1; [ $? = 1 ] && ok "explicit file is linted even if excluded by config" || bad "explicit file"
"$planlint" --statistics repo/generated >out 2>&1; [ $? = 0 ] && ok "exclude globs skip folders in walks" || { bad "exclude"; cat out; }

printf 'select = ["cartesian-join"]\n' > repo/jobs/nightly/planlint.toml
"$planlint" --statistics repo >out 2>&1
! grep -q collect-large out && ok "closest configuration wins" || { bad "closest wins"; cat out; }
printf '[tool.planlint]\nper-file-ignores = { "repo/jobs/nightly/*.py" = ["SPK203"] }\n' > alt.toml
rm repo/jobs/nightly/planlint.toml
cp alt.toml pyproject.toml
"$planlint" --statistics --config pyproject.toml repo/jobs >out 2>&1
grep -q "SPK104" out && ! grep -q SPK203 out && ok "--config and per-file-ignores" || { bad "--config/per-file-ignores"; cat out; }

printf 'selec = ["x"]\n' > repo/jobs/planlint.toml
"$planlint" repo/jobs >out 2>&1; rc=$?
[ $rc = 2 ] && grep -q "repo/jobs/planlint.toml:1:1: unknown key \`selec\`" out && ok "unknown key: exit 2 with file:line:col" || { bad "unknown key (rc $rc)"; cat out; }
printf 'broadcast-threshold = true\n' > repo/jobs/planlint.toml
"$planlint" repo/jobs >out 2>&1; rc=$?
[ $rc = 2 ] && grep -q "planlint.toml:1:23: \`broadcast-threshold\` must be" out && ok "wrong type: exit 2 with position" || { bad "wrong type (rc $rc)"; cat out; }
printf 'ignore = ["no-such-rule"]\n' > repo/jobs/planlint.toml
"$planlint" repo/jobs >out 2>&1; [ $? = 2 ] && grep -q "unknown rule selector \`no-such-rule\`" out && ok "unknown rule in config" || { bad "unknown rule"; cat out; }
printf 'small-tables = ["dim_country"]\nbroadcast-threshold = "1MB"\n' > repo/jobs/planlint.toml
printf 'e = spark.table("events")\nj = e.join(spark.table("dim_country"), "c")\n' > repo/jobs/join.py
"$planlint" repo/jobs/join.py >out 2>&1; grep -q "missing-broadcast" out && ok "small-tables option" || { bad "small-tables"; cat out; }
rm repo/jobs/planlint.toml
printf 'from pyspark.sql import SparkSession\nspark = SparkSession.builder.getOrCreate()\n' > repo/jobs/session.py
"$planlint" --isolated repo/jobs/session.py >out 2>&1; [ $? = 0 ] && ok "no version-dependent finding without a target" || { bad "target default"; cat out; }
printf 'target-spark-version = "3.1"\n' > repo/jobs/planlint.toml
"$planlint" repo/jobs/session.py >out 2>&1; grep -q "AQE is off by default" out && ok "target-spark-version 3.1: AQE default advice" || { bad "target 3.1"; cat out; }
rm repo/jobs/planlint.toml repo/jobs/session.py

# Baselines: record, then only new findings; stable across renumbered ids and moved lines.
plan=$fixtures/rules/python-row-udf/bad_batch_eval_python_formatted.plan
cp "$plan" p.plan
"$planlint" --write-baseline base.json p.plan >out 2>&1; rc=$?
[ $rc = 0 ] && python3 -c "import json; d=json.load(open('base.json')); assert len(d['findings'])==1" && ok "write-baseline records findings" || { bad "write-baseline (rc $rc)"; cat out; }
"$planlint" --baseline base.json p.plan >out 2>&1; [ $? = 0 ] && ok "baseline hides known findings" || { bad "baseline"; cat out; }
sed -e 's/#8L/#91L/g; s/#5L/#77L/g; s/#2L/#3L/g' -e '1i\\' -e '' p.plan > p2.plan
printf '\n\n' | cat - p2.plan > p.plan
"$planlint" --baseline base.json p.plan >out 2>&1; [ $? = 0 ] && ok "baseline survives renumbered ids and moved lines" || { bad "baseline renumbered"; cat out; }
cat "$fixtures/rules/cartesian-join/bad_cartesian_and_bnlj.plan" >> p.plan
"$planlint" --baseline base.json p.plan >out 2>&1; rc=$?
[ $rc = 1 ] && grep -q cartesian-join out && ! grep -q python-row-udf out && ok "baseline reports only new findings" || { bad "new findings (rc $rc)"; cat out; }
echo 'nope' > broken.json
"$planlint" --baseline broken.json p.plan >out 2>&1; [ $? = 2 ] && ok "broken baseline: exit 2" || bad "broken baseline"

# -j: same output in the same order as a serial run (folders are walked beside the linting with -j > 1).
"$planlint" --format json -j 1 "$corpus/plans" "$fixtures" > serial.json 2>/dev/null
for j in 2 4; do
  "$planlint" --format json -j $j "$corpus/plans" "$fixtures" > parallel.json 2>/dev/null
  cmp -s serial.json parallel.json && ok "-j $j output identical to -j 1" || bad "-j $j output differs"
done

# A tree with configurations in it, one of them broken, and an output format set by the configuration
# of the first file: the same report, errors and exit code serially and in parallel.
mkdir -p tree/a/deeper tree/b tree/c/x tree/c/y tree/.git
printf 'output-format = "json"\n' > tree/.planlint.toml
printf 'select = ["cartesian-join"]\noutput-format = "json"\n' > tree/a/planlint.toml
printf '[tool.planlint]\nignore = ["cartesian-join"]\n' > tree/b/pyproject.toml
printf 'selec = ["x"]\n' > tree/c/planlint.toml
for d in tree tree/a tree/a/deeper tree/b tree/c tree/c/x tree/c/y tree/.git; do
  cp "$fixtures/source/cartesian-join/bad_cross.py" "$d/cross.py"
  cp "$fixtures/rules/python-row-udf/bad_batch_eval_python_formatted.plan" "$d/udf.plan"
done
"$planlint" -j 1 tree > t1.out 2> t1.err; echo "rc $?" >> t1.out
head -c 1 t1.out | grep -q '[[{]' && ok "output-format from the configuration" || { bad "output-format from config"; head -3 t1.out; }
grep -q "rc 2" t1.out && grep -q "tree/c/planlint.toml:1:1: unknown key" t1.err && grep -q "not linted: its configuration has an error" t1.err \
  && ok "broken configuration in a walked folder: its files not linted, exit 2" || { bad "broken config in walk"; cat t1.err; }
[ "$(grep -c '^planlint: error: [^ ]*planlint.toml:1:1: unknown key' t1.err)" = 1 ] && head -1 t1.err | grep -q "tree/c/planlint.toml:1:1" \
  && ok "a broken configuration is reported once, before the files it keeps from being linted" || { bad "config error once"; cat t1.err; }
grep -q '"tree/a/deeper/cross.py"' t1.out && ! grep -q 'tree/.git' t1.out && grep -q '"tree/b/udf.plan"' t1.out \
  && ok "walked files reported" || { bad "walked files"; cat t1.out; }
for j in 2 3; do
  "$planlint" -j $j tree > tj.out 2> tj.err; echo "rc $?" >> tj.out
  cmp -s t1.out tj.out && cmp -s t1.err tj.err && ok "-j $j: same report, errors and exit code in a configured tree" \
    || { bad "-j $j in a configured tree"; diff t1.out tj.out | head; diff t1.err tj.err; }
done

echo "$fails failed"
[ "$fails" = 0 ]
