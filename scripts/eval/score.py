#!/usr/bin/env python3
"""Scores planlint's source rules on one split of the production corpus from blind labels.

usage: score.py REPORT.json LABELS.tsv MISSES.tsv [--errors] [--root CORPUS_SPLIT_DIR] [--counts]
(--counts prints the counters as JSON instead of the table: pooled.py adds them up over splits.)
REPORT.json: `planlint --isolated --no-cache --format json .` run in the split's folder (rebuild.sh).
LABELS.tsv (id, rule, file, line, verdict, reason): a reviewer's verdict on a finding, given the
rule's documentation and the code only: WARN (real, and the code shows the cost), INFO (real, size
not shown), FALSE (wrong or harmless). MISSES.tsv (rule, file, line, verdict, reason): real problems
(WARN or INFO) the reviewer found that no finding reported.

A warning is right when its label is WARN; an info when it is WARN or INFO. Recall counts every real
instance (findings labelled WARN or INFO, and misses) and how many of them planlint reported at any
severity; a finding labelled real that the report does not make (a later version dropped it) counts
as missed. Findings without a label are counted apart (label them before trusting the table).
"""
import collections
import json
import os
import re
import sys


def key(rule, path, line):
    return rule, os.path.normpath(path), int(line)


report = json.load(open(sys.argv[1]))
labels = {}
for n, row in enumerate(open(sys.argv[2], encoding="utf-8")):
    f = row.rstrip("\n").split("\t")
    if n == 0 or len(f) < 5:
        continue
    labels[key(f[1], f[2], f[3])] = f[4].strip().upper()
misses = []
for n, row in enumerate(open(sys.argv[3], encoding="utf-8")):
    f = row.rstrip("\n").split("\t")
    if n == 0 or len(f) < 4:
        continue
    misses.append(key(f[0], f[1], f[2]))
show = "--errors" in sys.argv

s = collections.defaultdict(collections.Counter)
found = collections.defaultdict(list)
for d in report["diagnostics"]:
    k = key(d["rule"]["name"], d["file"], d["line"])
    found[(k[0], k[1])].append(k[2])
    v = labels.get(k)
    rule, sev = k[0], "warn" if d["severity"] in ("warning", "error") else "info"
    if v is None:
        s[rule][sev + "_unlabelled"] += 1
        continue
    ok = v == "WARN" if sev == "warn" else v in ("WARN", "INFO")
    s[rule][sev + ("_ok" if ok else "_wrong")] += 1
    if v in ("WARN", "INFO"):
        s[rule]["real_found"] += 1
    if show and not ok:
        print(f"wrong {sev}: {rule}\t{k[1]}:{k[2]}\t{v}")
# A finding labelled real that this report no longer makes (a later version dropped it) is missed too,
# unless it is the same DataFrame's recomputation reported at another binding of its name (`cen = ...`
# rebound five times is one problem; a version that reports it once has not missed four). That needs
# the code: --root names the folder the report was made in.
root = sys.argv[sys.argv.index("--root") + 1] if "--root" in sys.argv else None
named = collections.defaultdict(set)  # (rule, path) -> names the report's findings are about
for d in report["diagnostics"]:
    m = re.match(r"`([A-Za-z_][A-Za-z0-9_]*)`", d["message"])
    if m:
        named[(d["rule"]["name"], os.path.normpath(d["file"]))].add(m.group(1))


def same_name_reported(rule, path, line):
    if root is None or rule != "recomputed-lineage" or not named.get((rule, path)):
        return False
    try:
        with open(os.path.join(root, path), encoding="utf-8", errors="replace") as f:
            text = f.read().split("\n")
    except OSError:
        return False
    if path.endswith(".ipynb") or not 0 < line <= len(text):
        return False
    m = re.match(r"\s*([A-Za-z_][A-Za-z0-9_]*)\s*=[^=]", text[line - 1])
    return m is not None and m.group(1) in named[(rule, path)]


for (rule, path, line), v in labels.items():
    if v in ("WARN", "INFO") and not any(abs(line - l) <= 2 for l in found.get((rule, path), [])):
        if same_name_reported(rule, path, line):
            continue
        s[rule]["missed"] += 1
        if show:
            print(f"dropped: {rule}\t{path}:{line}")
for rule, path, line in misses:
    if any(abs(line - l) <= 2 for l in found.get((rule, path), [])):
        continue  # reported after all (by a later version, or within two lines)
    s[rule]["missed"] += 1
    if show:
        print(f"missed: {rule}\t{path}:{line}")


if "--counts" in sys.argv:  # the raw counters, for pooled.py
    print(json.dumps({rule: dict(c) for rule, c in s.items()}))
    sys.exit(0)


def ratio(a, b):
    return f"{a / (a + b):.2f} ({a}/{a + b})" if a + b else "-"


print(f"{'rule':30} {'warning precision':>18} {'info precision':>16} {'recall':>14} {'unlabelled':>10}")
tot = collections.Counter()
for rule in sorted(s):
    c = s[rule]
    tot.update(c)
    print(f"{rule:30} {ratio(c['warn_ok'], c['warn_wrong']):>18} {ratio(c['info_ok'], c['info_wrong']):>16} "
          f"{ratio(c['real_found'], c['missed']):>14} {c['warn_unlabelled'] + c['info_unlabelled']:>10}")
c = tot
print(f"{'all':30} {ratio(c['warn_ok'], c['warn_wrong']):>18} {ratio(c['info_ok'], c['info_wrong']):>16} "
      f"{ratio(c['real_found'], c['missed']):>14} {c['warn_unlabelled'] + c['info_unlabelled']:>10}")
