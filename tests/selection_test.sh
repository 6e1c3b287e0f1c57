#!/usr/bin/env bash
# Rule selection by family, impact and legacy id; --warn and --fail-on and their configuration keys.
set -uo pipefail
planlint=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
source "$(dirname "$0")/lib.sh"

# redundant-shuffle: warning (a repartition on (day, store) right before a groupBy on day: shuffled twice), high impact (SPK1);
# cache-without-unpersist: info, low impact (SPK5), advisory: it fails the run only with --fail-on info.
mkdir -p "$work/p"
cat > "$work/p/job.py" <<'PY'
from pyspark.sql import SparkSession
from pyspark.sql.functions import udf
spark = SparkSession.builder.getOrCreate()
df = spark.read.parquet("s3://b/events")
df.cache()
df.write.parquet("s3://b/copy")
spark.read.parquet("s3://b/orders").repartition("day", "store").groupBy("day").count().write.parquet("s3://b/daily")
PY
printf 'def f(:\n' > "$work/broken.py"
job=$work/p/job.py

check "both findings by default" 1 "$planlint" --isolated "$job"
contains "redundant-shuffle reported" out "[redundant-shuffle]"
contains "cache-without-unpersist reported" out "[cache-without-unpersist]"

check "--select a family prefix" 1 "$planlint" --isolated --select SPK1 "$job"
contains "SPK1 keeps redundant-shuffle" out "[redundant-shuffle]"
lacks "SPK1 drops the SPK5 rule" out "[cache-without-unpersist]"
check "--ignore a family prefix (the info left is advisory)" 0 "$planlint" --isolated --ignore SPK1 "$job"
lacks "ignore SPK1" out "[redundant-shuffle]"
check "--select a family with no finding here" 0 "$planlint" --isolated --select SPK2 "$job"

check "--min-impact high" 1 "$planlint" --isolated --min-impact high "$job"
lacks "low-impact rule not run" out "[cache-without-unpersist]"
contains "high-impact rule still run" out "[redundant-shuffle]"
check "--min-impact does not hide syntax errors" 1 "$planlint" --isolated --min-impact high "$work/broken.py"
contains "python-syntax under --min-impact high" out "[python-syntax]"
check "--min-impact checks its value" 2 "$planlint" --isolated --min-impact huge "$job"

check "--warn: reported, run passes when only warn rules fire" 0 "$planlint" --isolated --warn redundant-shuffle,SPK5 "$job"
contains "--warn findings are still printed" out "[redundant-shuffle]"
contains "--warn summary says they do not fail" out "2 not failing the run"
check "--warn on one rule: the info alone passes by default" 0 "$planlint" --isolated --warn redundant-shuffle "$job"
check "--warn on one rule: the other fails with --fail-on info" 1 "$planlint" --isolated --fail-on info --warn redundant-shuffle "$job"
check "--warn rejects an unknown rule" 2 "$planlint" --isolated --warn nope "$job"
check "--fail-on warning: the info finding alone passes" 0 "$planlint" --isolated --fail-on warning --select cache-without-unpersist "$job"
check "--fail-on warning: a warning fails" 1 "$planlint" --isolated --fail-on warning "$job"
check "--fail-on error: warnings pass" 0 "$planlint" --isolated --fail-on error "$job"
check "--fail-on error: a syntax error fails" 1 "$planlint" --isolated --fail-on error "$work/broken.py"
check "--fail-on checks its value" 2 "$planlint" --isolated --fail-on never "$job"
check "json marks what fails" 1 "$planlint" --isolated --format json --fail-on info --warn redundant-shuffle "$job"
python3 - "$work/out" <<'PYCHECK' && echo "ok   json impact and fails_run" || { echo "FAIL json impact/fails_run"; fails=$((fails+1)); }
import json, sys
d = {x["rule"]["name"]: x for x in json.load(open(sys.argv[1]))["diagnostics"]}
assert d["redundant-shuffle"]["impact"] == "high" and d["redundant-shuffle"]["fails_run"] is False, d["redundant-shuffle"]
assert d["cache-without-unpersist"]["impact"] == "low" and d["cache-without-unpersist"]["fails_run"] is True
PYCHECK

# The same through the configuration.
printf '[tool.planlint]\nmin-impact = "medium"\n' > "$work/p/pyproject.toml"
check "config min-impact" 1 "$planlint" "$job"
lacks "config min-impact drops the low rule" out "[cache-without-unpersist]"
printf '[tool.planlint]\nwarn = ["redundant-shuffle"]\nfail-on = "warning"\n' > "$work/p/pyproject.toml"
check "config warn + fail-on: nothing fails" 0 "$planlint" "$job"
contains "config warn: still reported" out "[redundant-shuffle]"
printf '[tool.planlint]\nfail-on = "sometimes"\n' > "$work/p/pyproject.toml"
check "config fail-on checks its value" 2 "$planlint" "$job"
contains "config error names file:line:col" err "pyproject.toml:2:11: \`fail-on\` must be one of"
printf '[tool.planlint]\nwarn = ["nope"]\n' > "$work/p/pyproject.toml"
check "config warn checks its rules" 2 "$planlint" "$job"
rm "$work/p/pyproject.toml"

# The ids of 0.1 (PL...) still select and suppress the same rules.
check "legacy id in --select" 1 "$planlint" --isolated --select PL001 "$job"
contains "PL001 is redundant-shuffle" out "[redundant-shuffle]"
lacks "PL001 selects nothing else" out "[cache-without-unpersist]"
sed -i 's/^spark.read.parquet("s3:\/\/b\/orders").*$/&  # noqa: PL001/' "$job"
check "legacy id in noqa (the info left is advisory)" 0 "$planlint" --isolated "$job"
lacks "noqa: PL001 suppresses redundant-shuffle" out "[redundant-shuffle]"
check "planlint rule PL001" 0 "$planlint" rule PL001
contains "legacy id resolves to the new page" out "# redundant-shuffle (SPK101)"

# planlint rules: families and impact.
check "planlint rules" 0 "$planlint" rules
contains "rules lists families" out "SPK1  shuffles and joins"
contains "rules shows impact" out "redundant-shuffle              warning  high"
check "rules json" 0 "$planlint" rules --format json
python3 - "$work/out" <<'PYCHECK' && echo "ok   every rule contains an impact and a family" || { echo "FAIL rules json impact"; fails=$((fails+1)); }
import json, sys
rules = json.load(open(sys.argv[1]))
assert all(r["impact"] in ("low", "medium", "high") for r in rules)
assert all(r["id"].startswith("SPK") and len(r["id"]) == 6 for r in rules)
assert len({r["id"] for r in rules}) == len(rules)
assert {r["legacy_id"] for r in rules if r["legacy_id"]} == {"PL%03d" % i for i in range(30)}
PYCHECK

# eventlog takes the same options.
ev=$(dirname "$0")/../examples/eventlogs/nightly_etl.zstd
check "eventlog --warn everything passes" 0 "$planlint" eventlog --warn ALL "$ev"
check "eventlog --min-impact high still diagnoses" 1 "$planlint" eventlog --min-impact high "$ev"

finish
