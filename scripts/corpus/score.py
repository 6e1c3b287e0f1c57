#!/usr/bin/env python3
"""Scores planlint's source rules on the labelled development corpus: per-rule precision and recall.

usage: score.py PLANLINT CORPUS_DIR [--show-unlabelled]
CORPUS_DIR is what rebuild.sh made. Labels (scripts/corpus/labels.tsv) say, for a rule, file and line,
TRUE (a finding that is right), FALSE (a finding that is wrong) or MISSED (a real problem planlint
should report there). A finding nobody labelled is listed: label it by hand before trusting the table.
"""
import collections
import json
import os
import pathlib
import subprocess
import sys

here = pathlib.Path(__file__).resolve().parent
planlint, corpus = os.path.abspath(sys.argv[1]), sys.argv[2]
show_unlabelled = "--show-unlabelled" in sys.argv
show_errors = "--show-errors" in sys.argv  # list wrong and missed findings too

labels = collections.defaultdict(list)
for n, row in enumerate(open(here / "labels.tsv", encoding="utf-8")):
    if n == 0 or not row.strip():
        continue
    rule, path, line, verdict, reason = row.rstrip("\n").split("\t", 4)
    labels[(rule, os.path.normpath(path), int(line))].append(verdict)

run = subprocess.run([planlint, "--isolated", "--no-cache", "--format", "json", "-j", "2", "."], cwd=corpus, capture_output=True)
if run.returncode not in (0, 1):
    sys.exit(f"planlint failed ({run.returncode}): {run.stderr.decode()[:500]}")
report = json.loads(run.stdout)

found = collections.Counter()
for d in report["diagnostics"]:
    found[(d["rule"]["name"], os.path.normpath(d["file"]), d["line"])] += 1

stats = collections.defaultdict(lambda: collections.Counter())
unlabelled = []
for key, n in found.items():
    verdicts = labels.get(key, [])
    for i in range(n):
        if i < len(verdicts):
            v = verdicts[i]
        elif verdicts:
            v = "FALSE"  # one more finding than the labels expect on this line: a duplicate
        else:
            unlabelled.append(key)
            stats[key[0]]["unlabelled"] += 1
            continue
        stats[key[0]]["tp" if v in ("TRUE", "MISSED") else "fp"] += 1
        if v == "FALSE" and show_errors:
            print("wrong:", *key, sep="\t")
for key, verdicts in labels.items():
    if not (pathlib.Path(corpus) / key[1]).exists():
        continue  # a label of the other corpus (dev or held-out)
    real = sum(v in ("TRUE", "MISSED") for v in verdicts)
    missing = max(0, real - found.get(key, 0))
    stats[key[0]]["fn"] += missing
    if missing and show_errors:
        print("missed:", *key, sep="\t")

print(f"{'rule':32} {'TP':>4} {'FP':>4} {'FN':>4} {'precision':>10} {'recall':>8} {'unlabelled':>10}")
tot = collections.Counter()
for rule in sorted(stats):
    s = stats[rule]
    tot.update(s)
    p = s["tp"] / (s["tp"] + s["fp"]) if s["tp"] + s["fp"] else float("nan")
    r = s["tp"] / (s["tp"] + s["fn"]) if s["tp"] + s["fn"] else float("nan")
    print(f"{rule:32} {s['tp']:4} {s['fp']:4} {s['fn']:4} {p:10.1%} {r:8.1%} {s['unlabelled']:10}")
p = tot["tp"] / (tot["tp"] + tot["fp"]) if tot["tp"] + tot["fp"] else float("nan")
r = tot["tp"] / (tot["tp"] + tot["fn"]) if tot["tp"] + tot["fn"] else float("nan")
print(f"{'all':32} {tot['tp']:4} {tot['fp']:4} {tot['fn']:4} {p:10.1%} {r:8.1%} {tot['unlabelled']:10}")
files = {d["file"] for d in report["diagnostics"]}
print(f"corpus: {sum(1 for _ in pathlib.Path(corpus).rglob('*') if _.is_file())} files; findings in {len(files)}")
if show_unlabelled:
    for key in sorted(unlabelled):
        print("unlabelled:", *key, sep="\t")
