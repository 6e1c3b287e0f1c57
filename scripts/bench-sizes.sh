#!/usr/bin/env bash
# Time and peak RSS of planlint over 1, 10 and 100 MB inputs of each kind (plan text, .py, .ipynb,
# Databricks notebook), generated into a temporary folder from fixtures of our own. Linear time and
# RSS under 10x the input are the goals; numbers are printed, never asserted.
#   usage: scripts/bench-sizes.sh [PLANLINT=build/planlint] [SIZES_MB="1 10 100"]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
planlint=$(realpath "${1:-$root/build/planlint}")
sizes=${2:-"1 10 100"}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
plan_unit=$root/examples/plans/daily_revenue.txt
py_unit=$root/fixtures/source/collect-large/bad_collect.py
python3 - "$work" "$plan_unit" "$py_unit" $sizes <<'PY'
import json, sys
work, plan_unit, py_unit, sizes = sys.argv[1], sys.argv[2], sys.argv[3], [int(s) for s in sys.argv[4:]]
plan = open(plan_unit).read().rstrip("\n") + "\n\n"
py = open(py_unit).read().rstrip("\n") + "\n"
for mb in sizes:
    n = mb * 1024 * 1024
    open(f"{work}/plan_{mb}.txt", "w").write(plan * (n // len(plan) + 1))
    open(f"{work}/job_{mb}.py", "w").write(py * (n // len(py) + 1))
    cells = [{"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": None,
              "source": py.splitlines(True)} for _ in range(n // (len(py) + 200) + 1)]
    json.dump({"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}, open(f"{work}/nb_{mb}.ipynb", "w"), indent=1)
    db = "# Databricks notebook source\n" + ("# COMMAND ----------\n" + py) * (n // (len(py) + 21) + 1)
    open(f"{work}/db_{mb}.py", "w").write(db)
PY
printf '%-10s %8s %9s %10s %10s %9s\n' kind "size MB" "time s" "MB/s" "peak RSS MB" "RSS/input"
for kind in plan job nb db; do
  for mb in $sizes; do
    f=$(ls "$work"/${kind}_"$mb".*)
    bytes=$(stat -c %s "$f")
    /usr/bin/time -f "%e %M" -o "$work/t" "$planlint" --isolated -q --exit-zero "$f" >/dev/null 2>&1 || true
    read -r secs kb <"$work/t"
    python3 -c "b=$bytes/1048576; s=max($secs,0.001); r=$kb/1024; print(f'%-10s %8.1f %9.2f %10.1f %10.1f %9.1f' % ('$kind', b, $secs, b/s, r, r/b))"
  done
done
