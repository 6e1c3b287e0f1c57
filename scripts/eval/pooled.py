#!/usr/bin/env python3
"""Scores several splits at once and pools them: per rule, warnings precision, info precision, recall.

usage: pooled.py RUNS_DIR CORPUS_DIR SPLIT [SPLIT...] [--errors]
RUNS_DIR/SPLIT.json is `planlint --isolated --no-cache --format json .` run in CORPUS_DIR/SPLIT
(rebuild.sh lays the corpus out); labels and misses are scripts/eval/labels-SPLIT.tsv and
misses-SPLIT.tsv. Prints each split's totals, then the pooled table (score.py's columns).
"""
import collections
import json
import os
import subprocess
import sys

here = os.path.dirname(os.path.abspath(__file__))
args = [a for a in sys.argv[1:] if not a.startswith("--")]
runs, corpus, splits = args[0], args[1], args[2:]
pooled = collections.defaultdict(collections.Counter)


def ratio(a, b):
    return f"{a / (a + b):.2f} ({a}/{a + b})" if a + b else "-"


def row(name, c):
    return (f"{name:30} {ratio(c['warn_ok'], c['warn_wrong']):>18} {ratio(c['info_ok'], c['info_wrong']):>18} "
            f"{ratio(c['real_found'], c['missed']):>16} {c['warn_unlabelled'] + c['info_unlabelled']:>10}")


print(f"{'split / rule':30} {'warning precision':>18} {'info precision':>18} {'recall':>16} {'unlabelled':>10}")
for split in splits:
    cmd = [sys.executable, os.path.join(here, "score.py"), os.path.join(runs, split + ".json"),
           os.path.join(here, f"labels-{split}.tsv"), os.path.join(here, f"misses-{split}.tsv"),
           "--root", os.path.join(corpus, split), "--counts"]
    if "--errors" in sys.argv:
        out = subprocess.run(cmd[:-1] + ["--errors"], capture_output=True, text=True, check=True).stdout
        print("\n".join(f"{split}: {l}" for l in out.splitlines() if l.startswith(("wrong", "dropped", "missed"))))
    counts = json.loads(subprocess.run(cmd, capture_output=True, text=True, check=True).stdout)
    total = collections.Counter()
    for rule, c in counts.items():
        pooled[rule].update(c)
        total.update(c)
    print(row(split, total))
print()
total = collections.Counter()
for rule in sorted(pooled):
    total.update(pooled[rule])
    print(row(rule, pooled[rule]))
print(row("all", total))
