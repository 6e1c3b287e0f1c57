#!/usr/bin/env python3
"""Scores planlint's event-log diagnoses on real logs against blind labels.

  score.py PACKETS LABELS [LABELS...] --misses MISSES

PACKETS: the findings as labelled (id, log, rule, severity, stage, message, fix), written from
`planlint eventlog --format json` by packets.py. LABELS: id, verdict (TRUE/FALSE), worth (WARN/INFO),
reason, from a reviewer who saw the rule docs and the raw logs, never planlint's code. MISSES: log,
rule, stage, reason: what the reviewer found by the rules' definitions that planlint did not report.

Per rule: warnings precision (TRUE among warnings), info precision, recall (TRUE findings over TRUE
findings plus misses), and how often the severity matches the reviewer's "worth" (a warning the
reviewer would act on, an info they would not).
"""
import argparse
import collections
import csv


def rows(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f, delimiter="\t", quoting=csv.QUOTE_NONE))


ap = argparse.ArgumentParser()
ap.add_argument("packets")
ap.add_argument("labels", nargs="+")
ap.add_argument("--misses", action="append", default=[])
a = ap.parse_args()
found = {r["id"]: r for r in rows(a.packets)}
label = {}
for p in a.labels:
    for r in rows(p):
        label[r["id"]] = r
missing = [i for i in found if i not in label]
if missing:
    raise SystemExit(f"unlabelled findings: {missing}")
misses = collections.Counter()
for p in a.misses:
    for r in rows(p):
        misses[r["rule"]] += 1
stats = collections.defaultdict(lambda: collections.Counter())
for i, f in found.items():
    s = stats[f["rule"]]
    true = label[i]["verdict"] == "TRUE"
    sev = "warn" if f["severity"] in ("warning", "error") else "info"
    s[sev] += 1
    s[sev + "_true"] += true
    s["true"] += true
    worth = label[i].get("worth", "-")
    if true and worth in ("WARN", "INFO"):
        s["worth_n"] += 1
        s["worth_agree"] += (worth == "WARN") == (sev == "warn")
for r in misses:
    stats[r]


def frac(a, b):
    return "-" if b == 0 else f"{a / b:.2f} ({a}/{b})"


print("| rule | warnings precision | info precision | recall | severity as the reviewer would set it |")
print("|---|---|---|---|---|")
tot = collections.Counter()
for rule in sorted(stats):
    s = stats[rule]
    tot.update(s)
    print(f"| {rule} | {frac(s['warn_true'], s['warn'])} | {frac(s['info_true'], s['info'])} | "
          f"{frac(s['true'], s['true'] + misses[rule])} | {frac(s['worth_agree'], s['worth_n'])} |")
print(f"| **all** | {frac(tot['warn_true'], tot['warn'])} | {frac(tot['info_true'], tot['info'])} | "
      f"{frac(tot['true'], tot['true'] + sum(misses.values()))} | {frac(tot['worth_agree'], tot['worth_n'])} |")
