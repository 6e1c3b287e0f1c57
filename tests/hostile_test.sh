#!/usr/bin/env bash
# Hostile inputs and file handling (issue 11): invalid UTF-8, special files, read and write errors,
# symlinks and hard links, terminal escapes, a broken configuration among good ones, odd encodings.
# Every case checks the exit code, that the message names the file, and that other files still count.
set -uo pipefail
planlint=$1 fixtures=$2 validate=${3:-}
[ -x "$validate" ] || { [ -n "$validate" ] && echo "skip SARIF validation: needs ../shared/tools/validate-sarif (not found: $validate)"; validate=""; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fails=0
check() {  # check NAME EXPECTED_RC COMMAND...
  local name=$1 want=$2; shift 2
  timeout 60 "$@" >"$work/out" 2>"$work/err"
  local rc=$?
  if [ "$rc" != "$want" ]; then
    echo "FAIL $name: exit $rc, want $want"; sed 's/^/  | /' "$work/out" "$work/err" | head -20; fails=$((fails+1))
  else
    echo "ok   $name"
  fi
}
contains() {  # contains NAME FILE TEXT
  if grep -qF -- "$3" "$work/$2"; then echo "ok   $1"; else echo "FAIL $1: '$3' not in $2"; sed 's/^/  | /' "$work/$2" | head -20; fails=$((fails+1)); fi
}
lacks() {  # lacks NAME FILE TEXT
  if grep -qF -- "$3" "$work/$2"; then echo "FAIL $1: '$3' in $2"; sed 's/^/  | /' "$work/$2" | head -20; fails=$((fails+1)); else echo "ok   $1"; fi
}
good=$fixtures/source/single-file-write/bad_single_file.py  # three infos (single-file-write twice, recomputed-lineage): --fail-on info fails on them

# 1. Invalid UTF-8 in a plan and in a file name: every report format is still written, and valid.
printf '== Physical Plan ==\n*(1) Filter (a#1 = \xff\xfe)\n+- BatchEvalPython [f(a#1)#3], [pythonUDF0#4]\n   +- LocalTableScan [a#1]\n' >"$work/bad$(printf '\xff').plan"
bad_utf8="$work/bad$(printf '\xff').plan"
check "invalid UTF-8: json" 1 "$planlint" --isolated --format json "$bad_utf8" "$good"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert len(d["diagnostics"]) >= 4, d' "$work/out" \
  && echo "ok   invalid UTF-8: json parses, both files reported" || { echo "FAIL json"; fails=$((fails+1)); }
check "invalid UTF-8: sarif" 1 "$planlint" --isolated --format sarif -o "$work/out.sarif" "$bad_utf8" "$good"
if [ -n "$validate" ]; then check "invalid UTF-8: sarif validates" 0 "$validate" "$work/out.sarif"; fi
check "invalid UTF-8: baseline" 0 "$planlint" --isolated --write-baseline "$work/base.json" "$bad_utf8"
python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$work/base.json" && echo "ok   baseline is JSON" \
  || { echo "FAIL baseline"; fails=$((fails+1)); }

# 2. Special files: /dev/zero is bounded, a FIFO without a writer does not hang; folders only give
# regular files.
check "/dev/zero is refused, bounded" 2 "$planlint" --isolated /dev/zero "$good"
contains "/dev/zero named" err "/dev/zero: larger than"
contains "/dev/zero: the other file is linted" out "Found 3 findings in 1 file; 1 file could not be checked ("
mkfifo "$work/pipe.plan"
check "FIFO without a writer: no hang" 0 "$planlint" --isolated "$work/pipe.plan"
mkdir "$work/tree" && mkfifo "$work/tree/q.plan" && cp "$good" "$work/tree/"
check "folder walk skips FIFOs" 1 "$planlint" --isolated --fail-on info "$work/tree"
contains "folder walk lints the regular file" out "Found 3 findings in 1 file"

# 3. Read errors are errors naming the path; the rest is linted; never "All checks passed".
check "/proc/self/mem read error" 2 "$planlint" --isolated /proc/self/mem "$good"
contains "read error names the file" err "/proc/self/mem: cannot read"
lacks "no success after a read error" out "All checks passed"
check "missing file" 2 "$planlint" --isolated "$work/nope.plan"
contains "missing file named" err "nope.plan: no such file or directory"
ln -s loop "$work/loop" 2>/dev/null; ln -sf "$work/loop" "$work/loop"
check "self-looping symlink" 2 "$planlint" --isolated "$work/loop"
contains "symlink loop named" err "too many levels of symbolic links"

# 3 and 7. Permissions: a folder that cannot be listed is an error naming it and its siblings are
# still linted; --fix that cannot write its file (a read-only folder) is exit 2, says why, claims no
# fix, and counts the file as not written. Root reads and writes anything, so as root these run as
# the unprivileged user nobody.
as_user=()
if [ "$(id -u)" = 0 ]; then
  command -v setpriv >/dev/null && as_user=(setpriv --reuid=65534 --regid=65534 --clear-groups)
  # nobody must be able to reach the binary (a build under a private home folder is not).
  [ ${#as_user[@]} -gt 0 ] && ! "${as_user[@]}" "$planlint" --version >/dev/null 2>&1 && as_user=()
fi
if [ "$(id -u)" != 0 ] || [ ${#as_user[@]} -gt 0 ]; then
  chmod 755 "$work"
  mkdir -p "$work/perm/locked" "$work/perm/open" "$work/ro"
  cp "$good" "$work/perm/locked/" && cp "$good" "$work/perm/open/" && chmod 000 "$work/perm/locked"
  check "unlistable folder" 2 "${as_user[@]}" "$planlint" --isolated "$work/perm"
  contains "unlistable folder named" err "perm/locked: cannot list the folder (Permission denied)"
  contains "its sibling is linted" out "Found 3 findings in 1 file ("
  chmod 755 "$work/perm/locked"
  cp "$good" "$work/ro/job.py" && chmod 666 "$work/ro/job.py" && cp "$good" "$work/ro.orig" && chmod 555 "$work/ro"
  check "--fix in a read-only folder" 2 "${as_user[@]}" "$planlint" --isolated --fix --unsafe-fixes "$work/ro/job.py"
  contains "unwritable fix named" err "ro/job.py: cannot write"
  lacks "no fix claimed" out "Fixed"
  lacks "no success claimed" out "All checks passed"
  contains "the file counts as not written" out "Found 3 findings in 1 file; 1 file could not be written ("
  cmp -s "$work/ro/job.py" "$work/ro.orig" && echo "ok   the file is unchanged" || { echo "FAIL file changed"; fails=$((fails+1)); }
  chmod 755 "$work/ro"
else
  echo "skip permission cases: running as root, and the user nobody cannot run $planlint"
fi

# 4. A report that cannot be written is exit 2 with a message.
if [ -w /dev/full ]; then
  check "stdout on a full device" 2 bash -c "\"$planlint\" --isolated \"$good\" > /dev/full"
  contains "full device message" err "cannot write the report"
fi

# 5. -o writes through a symlink and refuses to replace a FIFO.
echo old >"$work/real.txt" && ln -s real.txt "$work/link.txt"
check "-o through a symlink" 1 "$planlint" --isolated --fail-on info -o "$work/link.txt" "$good"
[ -L "$work/link.txt" ] && grep -q "single-file-write" "$work/real.txt" && echo "ok   symlink kept, target written" \
  || { echo "FAIL -o symlink"; fails=$((fails+1)); }
mkfifo "$work/out.fifo"
check "-o refuses a FIFO" 2 "$planlint" --isolated -o "$work/out.fifo" "$good"
contains "-o FIFO named" err "not a regular file"

# 6. --fix on a symlink fixes the target; on a hard-linked file keeps the link; keeps the mode.
cp "$good" "$work/target.py" && ln -s target.py "$work/alias.py" && chmod 640 "$work/target.py"
check "--fix through a symlink" 1 "$planlint" --isolated --fail-on info --fix --unsafe-fixes --select single-file-write "$work/alias.py"
[ -L "$work/alias.py" ] && ! grep -q "coalesce(1)" "$work/target.py" && [ "$(stat -c %a "$work/target.py")" = 640 ] \
  && echo "ok   symlink kept, target fixed, mode kept" || { echo "FAIL --fix symlink"; fails=$((fails+1)); }
cp "$good" "$work/one.py" && ln "$work/one.py" "$work/two.py"
check "--fix on a hard link" 1 "$planlint" --isolated --fail-on info --fix --unsafe-fixes --select single-file-write "$work/one.py"
[ "$(stat -c %h "$work/one.py")" = 2 ] && ! grep -q "coalesce(1)" "$work/two.py" \
  && echo "ok   hard link kept, both names fixed" || { echo "FAIL --fix hard link"; fails=$((fails+1)); }

# 8. Terminal escape sequences in a flagged line are shown escaped.
printf 'df = spark.table("t").join(spark.table("u"), "k")\nrows = df.collect()  # \033]0;pwned\007\033[2J\n' >"$work/esc.py"
check "escapes in snippets" 1 "$planlint" --isolated --fail-on info "$work/esc.py"
if grep -q $'\033' "$work/out"; then echo "FAIL raw escape in output"; fails=$((fails+1)); else echo "ok   no raw escape"; fi
contains "escape shown" out '\x1b]0;pwned'
python3 -c "print('df = spark.table(\"t\").join(spark.table(\"u\"), \"k\"); rows = df.collect()  # ' + 'x' * 1000000)" >"$work/long.py"
check "a 1 MB line" 1 "$planlint" --isolated --fail-on info "$work/long.py"
[ "$(wc -c <"$work/out")" -lt 5000 ] && echo "ok   long line cut in the snippet" || { echo "FAIL long line"; fails=$((fails+1)); }

# 10. CR-only line endings are lines; UTF-16 is one clear error.
printf 'df = spark.table("t").join(spark.table("u"), "k")\rrows = df.collect()\r' >"$work/cr.py"
check "CR line endings" 1 "$planlint" --isolated --fail-on info "$work/cr.py"
contains "CR file linted" out "cr.py:2:11: info"
python3 -c "open('$work/u16.py','wb').write('df = 1\n'.encode('utf-16'))"
check "UTF-16" 2 "$planlint" --isolated "$work/u16.py"
contains "UTF-16 message" err "u16.py: UTF-16 text is not supported: save the file as UTF-8"

# 11. A broken pyproject.toml in one folder: that folder's files are errors, the others are linted.
mkdir -p "$work/cfg/a" "$work/cfg/b"
printf '[tool.planlint\nselect = [\n' >"$work/cfg/a/pyproject.toml"
cp "$good" "$work/cfg/a/" && cp "$good" "$work/cfg/b/"
check "broken configuration" 2 "$planlint" "$work/cfg"
contains "broken configuration named" err "a/pyproject.toml:1:"
contains "its file is not linted" err "a/bad_single_file.py: not linted: its configuration has an error"
contains "the other folder is linted" out "Found 3 findings in 1 file; 1 file could not be checked ("

# 9. No silent limits on long chains or deep nesting: the finding at the end of a 50,000-link
# chain is still reported; a filter nested in 100,000 parentheses is still read (both linear now).
python3 -c "print('df = spark.table(\"t\").join(spark.table(\"u\"), \"k\")'); print('x = df' + '.select(\"a\")' * 50000 + '.collect()')" >"$work/chain.py"
check "50,000-link chain" 1 "$planlint" --isolated --fail-on info --select collect-large "$work/chain.py"
contains "finding at the end of the chain" out "Found 1 finding in 1 file."
python3 -c "
n = 100000
print('== Physical Plan ==')
print('*(2) Filter ' + '(' * n + 'pythonUDF0#9 = true' + ')' * n + ' AND (a#1 > 0)')
print('+- BatchEvalPython [f(a#1)#8], [pythonUDF0#9]')
print('   +- LocalTableScan [a#1]')" >"$work/nest.plan"
check "100,000 nested parentheses" 1 "$planlint" --isolated --select filter-after-udf "$work/nest.plan"
contains "nested filter read" out "filter-after-udf"

# 12. A truncated notebook points at where reading stopped; invalid JSON after "cells" is an error,
# and --fix does not rewrite such a file; Python 2 points at the first offending line (an info: not
# analysed, not broken).
printf '{"cells": [ {"cell_type": "code", "source": [' >"$work/cut.ipynb"
check "truncated notebook" 1 "$planlint" --isolated "$work/cut.ipynb"
contains "truncated notebook position" out "cut.ipynb:1:46: error: not a Jupyter notebook"
printf '{"cells": [{"cell_type": "code", "metadata": {}, "source": ["df.coalesce(1).write.parquet(\\"o\\")\\n"]}], "metadata": {, "nbformat": 4}\n' >"$work/after.ipynb"
cp "$work/after.ipynb" "$work/after.orig"
check "invalid JSON after the cells" 1 "$planlint" --isolated --fix --unsafe-fixes "$work/after.ipynb"
contains "invalid JSON after the cells reported" out "after.ipynb:1:118: error: not a Jupyter notebook"
cmp -s "$work/after.ipynb" "$work/after.orig" && echo "ok   not rewritten" || { echo "FAIL rewritten"; fails=$((fails+1)); }
printf 'print "a"\nx = 1\nprint "b"\n' >"$work/py2.py"
check "Python 2" 0 "$planlint" --isolated "$work/py2.py"
contains "Python 2 first line" out "py2.py:1:1: info: Python 2 syntax"

# A Python file over 128 MiB is refused with a message (its analysis could need ~10x in memory).
python3 -c "open('$work/huge.py', 'w').write('x = 1\\n' * 23000000)"
check "Python source over 128 MiB" 2 "$planlint" --isolated "$work/huge.py"
contains "huge Python named" err "huge.py: Python source larger than 128 MiB"
rm -f "$work/huge.py"

# Code nested deeper than planlint analyses is said, not silently skipped.
python3 -c "print('df = spark.table(\"t\")'); print('x = ' + 'f(' * 1000 + 'df.collect()' + ')' * 1000)" >"$work/deep.py"
check "deep nesting" 1 "$planlint" --isolated "$work/deep.py"
contains "deep nesting said" out "deep.py:2:801: warning: code nested more than 400 levels deep"

# Found by config_fuzz: a baseline with a number JSON cannot hold is an error naming the file.
printf '9e9134\t99\t4a' >"$work/huge.json"
check "baseline with an out-of-range number" 2 "$planlint" --isolated --baseline "$work/huge.json" "$good"
contains "baseline error named" err "huge.json: not a planlint baseline"

echo "$fails failed"
[ "$fails" = 0 ]
