#!/usr/bin/env bash
# SARIF output of a multi-file run validates against the SARIF 2.1.0 schema, GitHub's copy and what
# code scanning needs (tests/validate-sarif; also ../shared/tools/validate-sarif where it is), and carries the fields planlint promises.
set -euo pipefail
planlint=$1 fixtures=$2 validate=$3
[ -x "$validate" ] || { echo "FAIL: no SARIF validator at $validate"; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$fixtures/.."   # relative paths, as in a repository checkout
set +e
"$planlint" --format sarif -o "$work/out.sarif" fixtures/rules fixtures/source
rc=$?
set -e
[ "$rc" = 1 ] || { echo "expected exit 1 (findings), got $rc"; exit 1; }
bash "$validate" "$work/out.sarif"
python3 - "$work/out.sarif" <<'PY'
import json, sys
log = json.load(open(sys.argv[1]))
run = log["runs"][0]
rules = run["tool"]["driver"]["rules"]
assert run["columnKind"] == "unicodeCodePoints"
assert "%SRCROOT%" in run["originalUriBaseIds"]
names = {r["name"] for r in rules}
assert {"redundant-shuffle", "filter-after-udf", "python-row-udf", "missing-broadcast", "aqe-disabled",
        "hardcoded-shuffle-partitions", "cartesian-join", "window-single-partition", "join-key-cast",
        "pushdown-blocked"} <= names, names
for r in rules:
    assert r["shortDescription"]["text"] and r["fullDescription"]["text"] and r["help"]["markdown"]
files = set()
for res in run["results"]:
    assert rules[res["ruleIndex"]]["id"] == res["ruleId"]
    loc = res["locations"][0]["physicalLocation"]
    assert loc["artifactLocation"]["uriBaseId"] == "%SRCROOT%"
    assert not loc["artifactLocation"]["uri"].startswith("/")
    assert res["partialFingerprints"]["planlintFingerprint/v1"]
    files.add(loc["artifactLocation"]["uri"])
assert len(files) > 10, files
cells = [r for r in run["results"] if "properties" in r]
assert cells and all({"cell", "cellLine", "cellColumn"} <= set(r["properties"]) for r in cells)
assert any(r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"].endswith(".ipynb") for r in cells)
print(f"sarif ok: {len(run['results'])} results in {len(files)} files")
PY
