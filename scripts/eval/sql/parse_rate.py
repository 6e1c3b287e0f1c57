#!/usr/bin/env python3
"""Parse rate of a statement parser on extract.py's statements, by kind and by repository.

  parse_rate.py PARSER statements.jsonl [--failures N]

PARSER reads NUL-separated statements on stdin and prints "ok" or "error OFFSET" per statement
(ts_parse.c built with a tree-sitter SQL grammar, or planlint's own frontend when it exists).
"""
import collections
import json
import subprocess
import sys

parser, path = sys.argv[1], sys.argv[2]
show = int(sys.argv[sys.argv.index("--failures") + 1]) if "--failures" in sys.argv else 0
rows = [json.loads(l) for l in open(path)]
data = b"\0".join(r["text"].encode("utf-8") for r in rows)
out = subprocess.run([parser], input=data, capture_output=True, check=True).stdout.decode().splitlines()
assert len(out) == len(rows), (len(out), len(rows))
by_kind, by_repo = collections.defaultdict(collections.Counter), collections.defaultdict(collections.Counter)
fails = []
for r, o in zip(rows, out):
    ok = o == "ok"
    by_kind[r["kind"]]["n"] += 1
    by_kind[r["kind"]]["ok"] += ok
    by_repo[r["repo"]]["n"] += 1
    by_repo[r["repo"]]["ok"] += ok
    if not ok:
        off = int(o.split()[1])
        fails.append((r, r["text"][max(0, off - 40):off + 60].replace("\n", " ")))
n = sum(c["n"] for c in by_kind.values())
ok = sum(c["ok"] for c in by_kind.values())
print(f"statements parsed without error: {ok}/{n} ({100 * ok / n:.1f} %)")
for k, c in sorted(by_kind.items()):
    print(f"  {k}: {c['ok']}/{c['n']} ({100 * c['ok'] / c['n']:.1f} %)")
rates = sorted(c["ok"] / c["n"] for c in by_repo.values())
print(f"per repository (each counts once): median {100 * rates[len(rates) // 2]:.1f} %, "
      f"mean {100 * sum(rates) / len(rates):.1f} % over {len(rates)} repositories")
for r, snip in fails[:show]:
    print(f"FAIL {r['repo']}/{r['path']}#{r['n']}: ...{snip}...")
