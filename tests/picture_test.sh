#!/usr/bin/env bash
# Plan pictures for real: DOT output of parse, lint and diff is rendered by Graphviz (`dot -Tsvg`)
# with one node per operator; the HTML page of a large real plan (TPC-DS q64, 180 operators) and of a
# diff is rendered in headless Chromium, whose screenshot must not be blank, whose console must have
# no script errors and whose DOM must hold every operator. Skips (exit 77) when neither dot nor
# chromium is installed; each half skips with a message when its tool is missing or cannot start.
# usage: picture_test.sh PLANLINT FIXTURES_DIR CORPUS_DIR
set -uo pipefail
planlint=$1 fixtures=$2 corpus=$3
[ -d "$corpus" ] || { echo "skip: needs ../shared/corpus (not found: $corpus)"; [ -z "${PLANLINT_REQUIRE_SHARED:-}" ] || exit 1; exit 77; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
source "$(dirname "$0")/lib.sh"
q64=$corpus/plans/spark-tpcds/comet-plugin-variant-454ca68/approved-plans-v1_4/q64/explain.txt
q64_before=$corpus/plans/spark-tpcds/hyperspace-copy-2021-03/approved-plans-v1_4/q64/explain.txt
d=$fixtures/diff
ran=0
# The operators of q64's physical plan and subqueries: its tree lines, which end in `(n)` (formatted
# EXPLAIN; the detail headers below the tree start with it).
operators=$(grep -E '\([0-9]+\)$' "$q64" | grep -vc '^(')
if command -v dot >/dev/null; then
  ran=1
  check "parse --dump dot" 0 "$planlint" parse --dump dot "$q64"
  cp "$work/out" "$work/parse.dot"
  check "dot renders parse" 0 dot -Tsvg -o "$work/parse.svg" "$work/parse.dot"
  nodes=$(grep -c 'class="node"' "$work/parse.svg")
  [ "$nodes" = "$operators" ] && echo "ok   dot: every one of the $operators operators drawn" ||
    { echo "FAIL dot: $nodes nodes"; fails=$((fails+1)); }
  check "lint --format dot" 1 "$planlint" --format dot --fail-on info -o "$work/lint.dot" "$q64"
  check "dot renders lint" 0 dot -Tsvg -o "$work/lint.svg" "$work/lint.dot"
  contains "lint dot: findings on their operators" lint.dot 'color="#d62828"'
  check "diff --format dot" 1 "$planlint" diff --format dot -o "$work/diff.dot" "$d/lost-broadcast.before.txt" \
    "$d/lost-broadcast.after.txt"
  check "dot renders diff" 0 dot -Tsvg -o "$work/diff.svg" "$work/diff.dot"
  contains "diff dot marks added operators" diff.dot '[added]'
  contains "diff dot shows removed operators" diff.dot '[removed]'
  contains "diff dot marks changed operators" diff.dot '[changed]'
else
  echo "skip dot: Graphviz is not installed (apt-get install graphviz)"
fi

chrome=$(command -v chromium || command -v chromium-browser || command -v google-chrome || true)
shoot() {  # shoot NAME HTML: screenshot, DOM and console of the page
  timeout 90 "$chrome" --headless --no-sandbox --disable-gpu --hide-scrollbars --window-size=1400,1000 \
    --enable-logging=stderr --v=0 --screenshot="$work/$1.png" "file://$2" >"$work/$1.shot" 2>"$work/$1.log"
  timeout 90 "$chrome" --headless --no-sandbox --disable-gpu --dump-dom "file://$2" >"$work/$1.dom" 2>>"$work/$1.log"
}
if [ -n "$chrome" ] && timeout 60 "$chrome" --headless --no-sandbox --disable-gpu --dump-dom about:blank >/dev/null 2>&1; then
  ran=1
  check "lint --format html of TPC-DS q64" 1 "$planlint" --format html --fail-on info -o "$work/q64.html" "$q64"
  check "diff --format html of q64 across Spark versions" 1 "$planlint" diff --format html -o "$work/diff.html" \
    "$q64_before" "$q64"
  lacks "self-contained: no network" q64.html "http://cdn"
  lacks "self-contained: no script" q64.html "<script"
  for page in q64 diff; do
    shoot "$page" "$work/$page.html"
    python3 - "$work/$page.png" "$work/$page.dom" "$work/$page.log" "$operators" "$page" <<'PY' && echo "ok   chromium renders $page" || { echo "FAIL chromium $page"; fails=$((fails+1)); }
import re, struct, sys, zlib
png, dom, log, operators, page = sys.argv[1:]
data = open(png, "rb").read()
assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
pos, idat, width, height, colour = 8, b"", 0, 0, 0
while pos < len(data):
    n, kind = struct.unpack(">I4s", data[pos:pos + 8])
    body = data[pos + 8:pos + 8 + n]
    if kind == b"IHDR":
        width, height, depth, colour = struct.unpack(">IIBB", body[:10])
    if kind == b"IDAT":
        idat += body
    pos += 12 + n
raw = zlib.decompress(idat)
bpp = {2: 3, 6: 4}[colour]
stride = width * bpp + 1
# Undo the PNG row filters enough to count colours of the unfiltered rows (filter type 0 and 1).
colours, prev = set(), bytearray(stride - 1)
for y in range(height):
    row = bytearray(raw[y * stride + 1:(y + 1) * stride])
    f = raw[y * stride]
    if f == 1:
        for i in range(bpp, len(row)): row[i] = (row[i] + row[i - bpp]) & 255
    elif f == 2:
        for i in range(len(row)): row[i] = (row[i] + prev[i]) & 255
    elif f != 0:
        prev = row; continue
    for x in range(0, len(row), bpp * 7):
        colours.add(bytes(row[x:x + 3]))
    prev = row
assert len(colours) > 12, f"blank screenshot: {len(colours)} colours"
html = open(dom, encoding="utf-8", errors="replace").read()
drawn = len(re.findall(r'<g id="g0-n\d+" class="node', html))
if page == "q64":
    assert drawn == int(operators), (drawn, operators)
else:
    assert drawn > int(operators), (drawn, operators)  # AFTER's operators and BEFORE's removed ones
assert "<details" in html and "Findings" in html
errors = [l for l in open(log, errors="replace") if "Uncaught" in l or ("CONSOLE" in l and "rror" in l)]
assert not errors, errors
print(f"  {page}: {width}x{height}, {len(colours)} colours sampled, {drawn} operators in the DOM")
PY
  done
else
  echo "skip chromium: no chromium that starts headless (apt-get install chromium)"
fi
[ "$ran" = 1 ] || exit 77
finish
