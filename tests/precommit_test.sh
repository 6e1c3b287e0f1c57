#!/usr/bin/env bash
# The hooks in .pre-commit-hooks.yaml, run by Debian's real pre-commit (`pre-commit try-repo`) in a
# scratch git repository: an anti-pattern blocks the commit, clean code passes, the fix hook edits
# the file and fails as pre-commit expects.
set -uo pipefail
planlint=$1 repo=$2 fixtures=$3
command -v pre-commit >/dev/null || { echo "pre-commit not installed"; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export PATH="$(dirname "$planlint"):$PATH" PRE_COMMIT_HOME="$work/cache" HOME="$work" GIT_CONFIG_NOSYSTEM=1
git config --global user.email ci@example.invalid; git config --global user.name ci
git config --global init.defaultBranch main; git config --global --add safe.directory '*'
fails=0
ok() { echo "ok   $1"; }
bad() { echo "FAIL $1"; fails=$((fails+1)); }
mkdir "$work/scratch" && cd "$work/scratch" && git init -q
cp "$fixtures/source/cartesian-join/bad_cross.py" bad.py
cp "$fixtures/source/cartesian-join/ok_keyed.py" good.py
cp "$fixtures/source/notebooks/bad_pretty.ipynb" nb.ipynb
cp "$fixtures/source/redundant-shuffle/bad_repartition.py" fixme.py
cp "$fixtures/rules/cartesian-join/bad_cartesian_and_bnlj.plan" q.plan
git add . && git commit -qm init
pre-commit try-repo "$repo" planlint --files bad.py >out 2>&1; rc=$?
[ $rc != 0 ] && grep -q "cartesian-join" out && ok "anti-pattern blocks the commit" || { bad "bad.py passed (rc $rc)"; cat out; }
pre-commit try-repo "$repo" planlint --files good.py >out 2>&1; rc=$?
[ $rc = 0 ] && ok "clean file passes" || { bad "good.py failed (rc $rc)"; cat out; }
pre-commit try-repo "$repo" planlint --files nb.ipynb >out 2>&1; rc=$?
[ $rc != 0 ] && grep -q "nb.ipynb:cell 3:3:17" out && ok "notebook checked by the jupyter type" || { bad "notebook (rc $rc)"; cat out; }
pre-commit try-repo "$repo" planlint-plans --files q.plan >out 2>&1; rc=$?
[ $rc != 0 ] && grep -q "cartesian-join" out && ok "plan hook" || { bad "plan hook (rc $rc)"; cat out; }
pre-commit try-repo "$repo" planlint-fix --files fixme.py >out 2>&1; rc=$?
if [ $rc != 0 ] && ! git diff --quiet -- fixme.py && grep -q "files were modified by this hook" out; then
  ok "fix hook edits the file and fails"
else
  bad "fix hook (rc $rc)"; cat out
fi
echo "$fails failed"
[ "$fails" = 0 ]
