#!/usr/bin/env bash
# --fix / --diff from the command line: writes only with --fix, keeps permissions, converges, and a
# kill in the middle of --fix on a large file leaves either the original or the fixed file, whole.
set -uo pipefail
planlint=$1 fixtures=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fails=0
ok() { echo "ok   $1"; }
bad() { echo "FAIL $1"; fails=$((fails+1)); }

src=$fixtures/source/redundant-shuffle/bad_repartition.py
cp "$src" "$work/job.py"
chmod 751 "$work/job.py"
"$planlint" --diff "$work/job.py" >"$work/diff" 2>&1; rc=$?
[ $rc = 1 ] && ok "--diff exits 1 when there is a diff" || bad "--diff exit $rc"
grep -q '^-by_customer = orders.repartition("customer_id")' "$work/diff" && ok "--diff shows the change" || bad "--diff output"
cmp -s "$src" "$work/job.py" && ok "--diff writes nothing" || bad "--diff modified the file"
"$planlint" --fix "$work/job.py" >"$work/out" 2>&1; rc=$?
[ $rc = 1 ] && ok "--fix exits 1 while unfixable findings remain" || bad "--fix exit $rc"
grep -q "Fixed 4 findings in 1 file." "$work/out" && ok "--fix reports what it fixed" || { bad "--fix summary"; cat "$work/out"; }
[ "$(stat -c %a "$work/job.py")" = 751 ] && ok "--fix keeps permissions" || bad "permissions $(stat -c %a "$work/job.py")"
cp "$work/job.py" "$work/once.py"
"$planlint" --fix "$work/job.py" >/dev/null 2>&1
cmp -s "$work/job.py" "$work/once.py" && ok "--fix twice changes nothing more" || bad "second --fix changed the file"
"$planlint" --diff "$work/job.py" >"$work/diff2" 2>&1; rc=$?
[ $rc = 0 ] && [ ! -s "$work/diff2" ] && ok "--diff is empty after --fix (safe fixes)" || bad "--diff after fix: rc $rc"
"$planlint" --diff --unsafe-fixes "$work/job.py" >"$work/diff3" 2>&1; rc=$?
[ $rc = 1 ] && grep -q '^-staged = orders.repartition' "$work/diff3" && ok "--unsafe-fixes adds the unsafe fix" || bad "--unsafe-fixes: rc $rc"
ls "$work" | grep -q 'planlint-.*tmp' && bad "temporary file left behind" || ok "no temporary file left"
printf 'rows = spark.table("t").repartition("k").groupBy("k").count()\n' | "$planlint" --fix - --stdin-filename x.py >"$work/stdout" 2>"$work/stderr"
grep -q '^rows = spark.table("t").groupBy("k").count()$' "$work/stdout" && ok "stdin --fix prints the fixed code" || bad "stdin --fix"

# Kill in the middle of a long --fix: the file is the original or the fixed one, never half of it.
python3 - "$work/big.py" <<'PY'
import sys
with open(sys.argv[1], "w") as f:
    for i in range(30000):
        f.write(f'df{i} = spark.table("t{i}").repartition("k").groupBy("k").count()\n')
PY
cp "$work/big.py" "$work/big_orig.py"
cp "$work/big.py" "$work/big_expected.py"
"$planlint" --fix -q "$work/big_expected.py" >/dev/null 2>&1
"$planlint" --fix -q "$work/big.py" >/dev/null 2>&1 &
pid=$!
sleep 0.2
kill -9 $pid 2>/dev/null
wait $pid 2>/dev/null
if cmp -s "$work/big.py" "$work/big_orig.py"; then ok "killed --fix left the original intact"
elif cmp -s "$work/big.py" "$work/big_expected.py"; then ok "killed --fix had already written the whole fixed file"
else bad "killed --fix left a damaged file"; fi
cmp -s "$work/big_orig.py" "$work/big_expected.py" && bad "the large file should have needed fixes" || ok "the large file needed fixes"

echo "$fails failed"
[ "$fails" = 0 ]
