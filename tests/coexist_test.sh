#!/usr/bin/env bash
# planlint beside ruff and flake8 on one file: each tool's noqa codes survive the others, as the README
# says. Runs Debian's flake8 and ruff's WebAssembly build (npm, pinned in package.json) on the same text.
set -uo pipefail
planlint=$1 node_modules=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fails=0
ok() { echo "ok   $1"; }
bad() { echo "FAIL $1"; fails=$((fails+1)); }
cat > "$work/job.py" <<'PY'
import os  # noqa: F401, SPK203
import sys  # noqa: SPK203
from pyspark.sql import SparkSession
spark = SparkSession.builder.getOrCreate()
rows = spark.table("t").join(spark.table("u"), "k").collect()  # noqa: SPK203
more = spark.table("t").join(spark.table("u"), "k").collect()  # noqa: E501, SPK203
x = 1  # noqa: E501
y = 2  # noqa
PY

# planlint: its codes suppress its findings; other tools' codes and bare noqa are not its to judge.
"$planlint" --isolated --extend-select unused-noqa --format json "$work/job.py" > "$work/pl.json"
python3 - "$work/pl.json" <<'PYCHECK' && ok "planlint: SPK codes suppress, E501/F401/bare noqa left alone, unused SPK203 on an import reported" || bad "planlint on the shared file"
import json, sys
d = [(x["rule"]["name"], x["line"]) for x in json.load(open(sys.argv[1]))["diagnostics"]]
# lines 1-2: SPK203 suppresses nothing there (no collect): unused; 5, 6: suppressed; 7, 8: not ours.
assert sorted(d) == [("unused-noqa", 1), ("unused-noqa", 2)], d
PYCHECK

# flake8: SPK codes are not its codes, so they suppress nothing of flake8's; F401 in the same list does.
if command -v flake8 >/dev/null; then
  flake8 --select F,E --max-line-length 200 "$work/job.py" > "$work/f8.txt"
  if grep -q ':2:1: F401' "$work/f8.txt" && ! grep -q ':1:1: F401' "$work/f8.txt"; then
    ok "flake8: '# noqa: F401, SPK203' suppresses F401, '# noqa: SPK203' does not"
  else bad "flake8 noqa with SPK codes"; cat "$work/f8.txt"; fi
  # The documented pitfall: a rule *name* is not a code flake8 can parse, so the comment is a bare noqa.
  printf 'import os  # noqa: collect-large\n' > "$work/named.py"
  if flake8 --select F "$work/named.py" >/dev/null; then ok "flake8 reads '# noqa: collect-large' as a bare noqa (README warns)"
  else bad "flake8 no longer treats a named noqa as bare: update the README"; fi
else
  echo "skip flake8 checks: flake8 is not installed"
fi

# ruff (WebAssembly build): RUF100 keeps SPK codes, with and without lint.external = ["SPK"].
ruff_js=$(cd "$node_modules" 2>/dev/null && pwd)/@astral-sh/ruff-wasm-nodejs
if command -v node >/dev/null && [ -f "$ruff_js/ruff_wasm.js" ]; then
  out=$(node - "$ruff_js" "$work/job.py" <<'JS'
const [ruffPath, file] = process.argv.slice(2);
const ruff = require(ruffPath);
const src = require("fs").readFileSync(file, "utf8");
for (const external of [[], ["SPK"]]) {
  const ws = new ruff.Workspace({ lint: { select: ["F", "RUF100"], external } }, ruff.PositionEncoding.Utf16);
  const found = ws.check(src).map((d) => `${d.start_location.row}:${d.code}:${d.message}`);
  console.log(JSON.stringify({ external, found }));
}
JS
)
  echo "$out" | python3 -c '
import json, sys
for line in sys.stdin:
    r = json.loads(line)
    found = r["found"]
    # F401 on line 2 only (line 1 is suppressed by F401 in its list); RUF100 never names an SPK code.
    assert [f for f in found if ":F401:" in f] == [f for f in found if f.startswith("2:F401")] != [], found
    assert not any("SPK" in f for f in found), found
    # ruff judges its own codes: the unused E501 on lines 6 and 7 is its to report.
    assert any(f.startswith("7:RUF100") for f in found), found
' && ok "ruff: RUF100 keeps SPK codes (external [] and [\"SPK\"]) and reports its own unused E501" || { bad "ruff with SPK codes"; echo "$out"; }
else
  echo "skip ruff checks: node or $ruff_js missing (npm ci installs it)"
  [ $fails = 0 ] && exit 77
fi

[ $fails = 0 ] && echo "all passed" || { echo "$fails failed"; exit 1; }
