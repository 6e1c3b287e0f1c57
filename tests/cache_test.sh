#!/usr/bin/env bash
# The results cache changes nothing but time: identical reports cold, warm and with --no-cache;
# an edited file or other options are analysed again; broken entries, an unwritable cache and
# concurrent runs are only slower.
set -uo pipefail
planlint=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
fixtures=$(cd "$2" && pwd)
work=$(mktemp -d)
trap 'chmod -R u+w "$work" 2>/dev/null; rm -rf "$work"' EXIT
fails=0
ok() { echo "ok   $1"; }
bad() { echo "FAIL $1"; fails=$((fails+1)); }
same() { if cmp -s "$2" "$3"; then ok "$1"; else bad "$1"; diff "$2" "$3" | head -10; fi; }
cd "$work" || exit 2
cp -r "$fixtures/source" src && cp -r "$fixtures/rules" plans
run() { PLANLINT_CACHE_STATS=1 "$planlint" --isolated --cache-dir "$work/cache" "$@"; }

run --format json src plans > cold.json 2> cold.err; rc_cold=$?
run --format json src plans > warm.json 2> warm.err; rc_warm=$?
"$planlint" --isolated --no-cache --format json src plans > none.json 2>/dev/null; rc_none=$?
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); sys.exit(0 if len(d["diagnostics"]) > 100 else 1)' cold.json \
  && ok "the reports compared hold findings" || bad "the cold report has no findings"
same "warm run reports what the cold run did" cold.json warm.json
same "--no-cache reports the same" cold.json none.json
[ "$rc_cold" = "$rc_warm" ] && [ "$rc_cold" = "$rc_none" ] && ok "same exit status ($rc_cold)" || bad "exit status $rc_cold/$rc_warm/$rc_none"
grep -q ' 0 hits' cold.err && ok "cold run: no hits" || { bad "cold run hits"; cat cold.err; }
grep -q ' 0 misses' warm.err && ok "warm run: every file from the cache" || { bad "warm run misses"; cat warm.err; }
[ -f cache/CACHEDIR.TAG ] && [ -f cache/.gitignore ] && ok "cache folder is tagged and git-ignored" || bad "CACHEDIR.TAG/.gitignore"
for fmt in text sarif github; do
  run --format "$fmt" src plans > "w.$fmt" 2>/dev/null
  "$planlint" --isolated --no-cache --format "$fmt" src plans > "n.$fmt" 2>/dev/null
  same "$fmt report identical from the cache" "w.$fmt" "n.$fmt"
done

# An edited file is analysed again, and only that one.
f=src/collect-large/bad_collect.py
printf 'more = spark.table("extra").join(spark.table("more"), "k").collect()\n' >> "$f"
run --format json src plans > edited.json 2> edited.err
"$planlint" --isolated --no-cache --format json src plans > edited_none.json 2>/dev/null
same "an edited file's new findings are reported" edited.json edited_none.json
grep -q ' 1 misses' edited.err && ok "only the edited file is analysed again" || { bad "misses after an edit"; cat edited.err; }

# A file's entry depends on the project modules it imports: editing one analyses its importers again.
m=src/project/common/udfs.py
grep -v 'asNondeterministic()$' "$m" > "$m.new" && mv "$m.new" "$m"
run --format json src plans > module.json 2> module.err
"$planlint" --isolated --no-cache --format json src plans > module_none.json 2>/dev/null
same "an imported module's edit reaches its importers' findings" module.json module_none.json
cmp -s module.json edited.json && bad "the module edit changed no finding: the case checks nothing" || ok "the module edit changed findings"
cp module_none.json edited_none.json  # what the runs below must report

# Other options: other entries.
run --format json --select collect-large src > sel.json 2> sel.err
"$planlint" --isolated --no-cache --format json --select collect-large src > sel_none.json 2>/dev/null
same "--select changes the key" sel.json sel_none.json
grep -q ' 0 hits' sel.err && ok "no entry of other options is reused" || { bad "hits with other options"; cat sel.err; }

# Broken entries are misses, and are rewritten.
find cache -type f ! -name CACHEDIR.TAG ! -name .gitignore | while read -r e; do printf 'garbage' > "$e"; done
run --format json src plans > broken.json 2> broken.err
same "garbage entries change nothing" broken.json edited_none.json
grep -q ' 0 hits' broken.err && ok "garbage entries are misses" || { bad "garbage read as hits"; cat broken.err; }
run --format json src plans > rewritten.json 2> rewritten.err
grep -q ' 0 misses' rewritten.err && ok "broken entries are rewritten" || { bad "not rewritten"; cat rewritten.err; }

# Entries cut short, or with one byte changed in the middle of their findings, are misses too.
entries() { find cache -type f ! -name CACHEDIR.TAG ! -name .gitignore; }
entries | while read -r e; do truncate -s $(( $(stat -c %s "$e") / 2 )) "$e"; done
run --format json src plans > truncated.json 2> truncated.err
same "truncated entries change nothing" truncated.json edited_none.json
grep -q ' 0 hits' truncated.err && ok "truncated entries are misses" || { bad "truncated read as hits"; cat truncated.err; }
entries | while read -r e; do
  size=$(stat -c %s "$e")
  printf '\x7f' | dd of="$e" bs=1 seek=$(( size * 2 / 3 )) conv=notrunc status=none
done
run --format json src plans > flipped.json 2> flipped.err
same "entries with a changed byte change nothing" flipped.json edited_none.json
grep -q ' 0 hits' flipped.err && ok "changed entries are misses (checksum)" || { bad "changed read as hits"; cat flipped.err; }

# A cache that cannot be written (its folder is a file): same report, same exit status.
printf 'x' > notadir
PLANLINT_CACHE_STATS=1 "$planlint" --isolated --cache-dir notadir/c --format json src plans > nodir.json 2>nodir.err; rc=$?
same "an unwritable cache changes nothing" nodir.json edited_none.json
[ "$rc" = "$rc_none" ] && ! grep -qi 'error' nodir.err && ok "and is no error" || { bad "unwritable cache rc $rc"; cat nodir.err; }

# Concurrent runs on one cache: every report complete and identical.
rm -rf cache
for i in 1 2 3 4; do run --format json src plans > "par$i.json" 2>/dev/null & done
wait
for i in 1 2 3 4; do same "concurrent run $i identical" "par$i.json" edited_none.json; done
[ -z "$(find cache -name '*.tmp')" ] && ok "no temporary files left" || bad "temporary files left"

# PLANLINT_CACHE_DIR chooses the folder; --fix never trusts the cache.
PLANLINT_CACHE_DIR="$work/envcache" "$planlint" --isolated --format json src > /dev/null 2>&1
[ -d envcache ] && ok "PLANLINT_CACHE_DIR is used" || bad "PLANLINT_CACHE_DIR"
cp src/count-for-emptiness/bad_count.py fixme.py
run fixme.py > /dev/null 2>&1
run --fix fixme.py > /dev/null 2>&1
run --format json fixme.py > after_fix.json 2>/dev/null
"$planlint" --isolated --no-cache --format json fixme.py > after_fix_none.json 2>/dev/null
same "after --fix the fixed text is what is reported" after_fix.json after_fix_none.json

[ $fails = 0 ] && echo "all passed" || { echo "$fails failed"; exit 1; }
