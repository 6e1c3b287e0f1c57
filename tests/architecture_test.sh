#!/usr/bin/env bash
# The rooms of docs/architecture.md and the arrows between them: each room includes only the rooms
# it may use (frontends never the engine, reporters never rules or the fixer, the engine never a
# reporter, the fixer or the command line). Usage: architecture_test.sh SOURCE_DIR
set -euo pipefail
root=$1
# room: the rooms it may include besides itself
declare -A may=(
  [util]=""
  [portable]=""
  [grammar]=""
  [plan]="util grammar"
  [pyspark]="util grammar"
  [eventlog]="util"
  [lint]="util grammar plan pyspark eventlog"
  [rules]="util plan pyspark eventlog lint"
  [report]="util plan eventlog lint"
  [fix]="util plan pyspark lint"
  [cli]="util plan pyspark eventlog lint report fix"
)
room_of_file() {
  case $1 in
    rules/*) echo rules ;;
    grammar/*) echo grammar ;;
    src/*) local r=${1#src/}; echo "${r%%/*}" ;;
  esac
}
room_of_include() {
  case $1 in
    ../../grammar/*) echo grammar ;;
    */*) echo "${1%%/*}" ;;
    *) echo "" ;;  # a header beside the file, or a library's (tree-sitter's internals in ts_walk.c)
  esac
}
bad=0 checked=0
cd "$root"
while IFS= read -r file; do
  from=$(room_of_file "$file")
  [ -n "$from" ] || continue
  [ -n "${may[$from]+set}" ] || { echo "FAIL: $file is in a room docs/architecture.md does not name ($from)"; bad=1; continue; }
  while IFS= read -r inc; do
    to=$(room_of_include "$inc")
    [ -n "$to" ] && [ "$to" != "$from" ] || continue
    checked=$((checked + 1))
    case " ${may[$from]} " in
      *" $to "*) ;;
      *) echo "FAIL: $file includes $inc: $from may not use $to"; bad=1 ;;
    esac
  done < <(sed -n 's/^#include "\([^"]*\)".*/\1/p' "$file")
done < <(find src rules grammar -type f \( -name "*.cpp" -o -name "*.hpp" -o -name "*.c" -o -name "*.h" \) | sort)
[ "$checked" -gt 50 ] || { echo "FAIL: only $checked includes between rooms were read"; exit 1; }
[ $bad = 0 ] && echo "ok: $checked includes between rooms, every arrow allowed"
exit $bad
