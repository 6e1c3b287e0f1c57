#!/usr/bin/env python3
"""Prints each finding of a planlint JSON report with its source lines, for labelling by hand.
usage: show.py REPORT.json CORPUS_DIR [RULE] [CONTEXT_LINES]"""
import json
import pathlib
import sys

report = json.load(open(sys.argv[1]))
root = pathlib.Path(sys.argv[2])
rule = sys.argv[3] if len(sys.argv) > 3 else None
ctx = int(sys.argv[4]) if len(sys.argv) > 4 else 3
for d in report["diagnostics"]:
    if rule and d["rule"]["name"] != rule:
        continue
    path = root / d["file"]
    lines = path.read_text(errors="replace").splitlines()
    ln = d["line"]
    print(f"=== {d['rule']['name']}\t{d['file']}\t{ln}\t{d['message'][:150]}")
    for i in range(max(1, ln - ctx), min(len(lines), ln + ctx) + 1):
        print(f"{'>' if i == ln else ' '}{i:5} {lines[i-1][:160]}")
