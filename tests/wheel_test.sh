#!/usr/bin/env bash
# The wheel (scripts/build-wheel.sh) installed into a fresh venv with `pip install --no-index`:
# `planlint` on PATH and `python -m planlint` run the binary; planlint.check() lints plan text and an
# object whose explain() prints a real corpus plan (a DataFrame stand-in: no Spark runs here);
# check_file() lints a notebook; the findings render as an HTML table. Skips (77) without a portable
# build or without `python3 -m venv` (Debian's python3-venv).
# usage: wheel_test.sh BUILD_DIR SOURCE_DIR PORTABLE(ON|OFF) CORPUS_DIR
set -uo pipefail
build=$(cd "$1" && pwd) src=$(cd "$2" && pwd) portable=$3 corpus=$4
case "$portable" in
  ON | on | 1 | TRUE | true) ;;
  *) echo "skipped: not a portable build (configure with -DPLANLINT_PORTABLE=ON, as scripts/setup.sh does)"; exit 77 ;;
esac
python=${PLANLINT_PYTHON:-/usr/bin/python3}
[ -x "$python" ] || python=python3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
if ! "$python" -m venv "$work/probe" >/dev/null 2>&1; then
  echo "skipped: '$python -m venv' is not available (apt-get install python3-venv)"; exit 77
fi
rm -rf "$work/probe"
. "$(dirname "$0")/lib.sh"
plan="$corpus/plans/spark-tpcds/comet-plugin-variant-454ca68/approved-plans-v2_7-spark3_5/q72/explain.txt"
# Without ../shared (a user's clone), a plan of the repository's own fixtures.
if [ ! -f "$plan" ]; then
  [ -z "${PLANLINT_REQUIRE_SHARED:-}" ] || { echo "FAIL: PLANLINT_REQUIRE_SHARED and no $plan"; exit 1; }
  echo "note: ../shared/corpus not found: using the fixture bad_cast_on_column.plan instead of q72"
  plan="$src/fixtures/rules/pushdown-blocked/bad_cast_on_column.plan"
fi
version=$("$build/planlint" --version | awk '{ print $2 }')

check "build-wheel.sh" 0 bash "$src/scripts/build-wheel.sh" "$build" "$work/dist"
wheel=$(tail -n 1 "$work/out")
# Tagged with the glibc the build linked against (glibc-floor.txt), or this machine's.
glibc=$(getconf GNU_LIBC_VERSION | awk '{ print $2 }')
[ -f "$build/glibc-floor.txt" ] && glibc=$(cat "$build/glibc-floor.txt")
want="planlint-$version-py3-none-manylinux_${glibc%%.*}_${glibc#*.}_$(uname -m).whl"
check "wheel named $want" 0 test "$(basename "$wheel")" = "$want"
# A wheel is never tagged for an older glibc than its binary needs: a build that claims 2.17 is refused.
mkdir -p "$work/claims-2.17/lib/planlint"
ln -s "$build/planlint" "$work/claims-2.17/planlint"
echo 2.17 >"$work/claims-2.17/glibc-floor.txt"
check "build-wheel.sh refuses a tag older than the binary's needs" 2 bash "$src/scripts/build-wheel.sh" "$work/claims-2.17" "$work/dist-2.17"
contains "says what the binary asks for" err "newer than the 2.17 it was linked against"
check "no wheel for the false claim" 0 test ! -e "$work/dist-2.17"
"$python" -m venv "$work/venv"
check "pip install --no-index" 0 env -u PYTHONPATH "$work/venv/bin/python" -m pip install --no-index --no-cache-dir -q "$wheel"
venv_bin="$work/venv/bin"
check "planlint on the venv's PATH" 0 test -x "$venv_bin/planlint"
check "bundled libraries under the venv's lib/planlint" 0 test -f "$work/venv/lib/planlint/liblzf.so.1"
check "licences under the venv's share/doc/planlint" 0 test -s "$work/venv/share/doc/planlint/licenses/simdjson"

# Another install scheme (a prefix, as --user and system installs are): scripts and data move together,
# so the binary's $ORIGIN/../lib/planlint run path still finds its libraries.
check "pip install --prefix" 0 env -u PYTHONPATH "$work/venv/bin/python" -m pip install --no-index --no-cache-dir -q --ignore-installed --prefix "$work/prefix" "$wheel"
check "prefix: binary runs from its scheme's bin/" 0 env -i "$work/prefix/bin/planlint" --version
contains "prefix: version" out "planlint $version"

mkdir "$work/empty" && cd "$work/empty" || exit 1
cp "$src/fixtures/source/notebooks/bad_pretty.ipynb" nb.ipynb
cp "$plan" q72.txt
# A PATH with only the venv and the system tools: nothing of the build tree.
run_env=(env -i HOME="$work" PATH="$venv_bin:/usr/bin:/bin")
check "planlint --version" 0 "${run_env[@]}" planlint --version
contains "version" out "planlint $version"
check "planlint lints a plan (exit 1)" 1 "${run_env[@]}" planlint --fail-on info q72.txt
contains "plan finding" out "pushdown-blocked"
check "planlint lints a notebook (exit 1)" 1 "${run_env[@]}" planlint nb.ipynb
contains "notebook finding at its cell" out "nb.ipynb:cell 3:3:17"
check "python -m planlint" 1 "${run_env[@]}" python -m planlint --fail-on info q72.txt
contains "python -m planlint output" out "pushdown-blocked"
check "python -m planlint --version" 0 "${run_env[@]}" python -m planlint --version

cat >api.py <<'PY'
import sys
import planlint

plan_path = sys.argv[1]
plan_text = open(plan_path).read()


class FakeDataFrame:
    """Stands in for a PySpark DataFrame: explain(mode=...) prints the plan, as PySpark does."""

    def __init__(self):
        self.modes = []

    def explain(self, extended=None, mode=None):
        self.modes.append(mode)
        print(plan_text)


assert "pyspark" not in sys.modules
found = planlint.check(plan_text)
assert isinstance(found, planlint.Findings) and isinstance(found, list), type(found)
rules = {f.rule for f in found}
assert "pushdown-blocked" in rules, rules
f = next(f for f in found if f.rule == "pushdown-blocked")
assert f.rule_id.startswith("SPK") and f.line > 0 and f.column > 0, f
assert f.source and f.source in plan_text, f.source  # the operator line, read back from the plan
assert f.fix, f

df = FakeDataFrame()
from_df = planlint.check(df)
assert df.modes == ["extended"], df.modes
assert [(g.rule, g.line, g.column) for g in from_df] == [(g.rule, g.line, g.column) for g in found]

class SilentDataFrame:  # explain() that prints nothing (it wrote to a JVM console): an error, not "0 findings"
    def explain(self, mode=None):
        return None
try:
    planlint.check(SilentDataFrame())
    raise AssertionError("a silent explain() was taken for a clean plan")
except planlint.PlanlintError as e:
    assert "explain printed no plan" in str(e), e

clean = planlint.check("== Physical Plan ==\n*(1) Scan ExistingRDD[id#0L]\n")
assert len(clean) == 0 and "no findings" in clean._repr_html_()

page = found._repr_html_()
assert page.startswith("<table") and page.count("<tr>") == len(found) + 1, page
assert "pushdown-blocked" in page and "<th>fix</th>" in page
nasty = planlint.check(plan_text.replace("Filter", "Filter", 1), name="<b>q.plan")
assert "<b>q.plan" not in nasty._repr_html_() and "&lt;b&gt;q.plan" in nasty._repr_html_()

nb = planlint.check_file("nb.ipynb")
cells = {(g.rule, g.cell, g.cell_line, g.column) for g in nb}
assert any(c[1] == 3 and c[2] == 3 and c[3] == 17 for c in cells), cells
g = next(g for g in nb if (g.cell, g.cell_line) == (3, 3))
assert g.source and "repartition" in g.source, g  # the cell's source line
assert str(g).startswith("nb.ipynb:cell 3:3:17"), str(g)

try:
    planlint.check(42)
except TypeError:
    pass
else:
    raise AssertionError("check(42) did not raise TypeError")
try:
    planlint.check_file("missing.py")
except planlint.PlanlintError as err:
    assert "missing.py" in str(err), err
else:
    raise AssertionError("check_file(missing) did not raise")
print("api ok:", len(found), "plan findings,", len(nb), "notebook findings")
PY
check "planlint.check / check_file / _repr_html_" 0 "${run_env[@]}" python api.py q72.txt
contains "api script ran" out "api ok:"
cat "$work/out"
finish
