#!/usr/bin/env python3
"""Warnings precision of a held-out split by each of three blind reviewers, and by their majority.

usage: majority.py SPLIT [SPLIT...]      (run from the repository root; e.g. test10 test11 test12 test13)
labels-SPLIT.tsv is the first reviewer (every finding), labels-SPLIT-second.tsv and
labels-SPLIT-third.tsv label the warnings of the frozen version again, row for row in the same order.
Majority: WARN when two of three say WARN, FALSE when two say FALSE, else INFO (real, advisory).
"""
import collections
import csv
import os
import sys

here = os.path.dirname(os.path.abspath(__file__))


def rows(name):
    return list(csv.DictReader(open(os.path.join(here, name), encoding="utf-8"), delimiter="\t"))


total = collections.Counter()
by_rule = collections.defaultdict(collections.Counter)
for split in sys.argv[1:]:
    first = collections.defaultdict(list)
    for r in rows(f"labels-{split}.tsv"):
        first[(r["rule"], r["file"])].append((int(r["line"]), r["verdict"]))
    second, third = rows(f"labels-{split}-second.tsv"), rows(f"labels-{split}-third.tsv")
    assert len(second) == len(third), split
    c = collections.Counter()
    for s, t in zip(second, third):
        assert (s["rule"], s["file"], s["line"]) == (t["rule"], t["file"], t["line"]), (s, t)
        v1 = next((v for line, v in first[(s["rule"], s["file"])] if abs(line - int(s["line"])) <= 2), "?")
        votes = [v1, s["verdict"], t["verdict"]]
        maj = "WARN" if votes.count("WARN") >= 2 else "FALSE" if votes.count("FALSE") >= 2 else "INFO"
        c["warnings"] += 1
        for who, v in zip(("first", "second", "third"), votes):
            c[who] += v == "WARN"
        c["majority"] += maj == "WARN"
        c["real"] += maj != "FALSE"
        c["unanimous"] += len(set(votes)) == 1
        by_rule[s["rule"]][maj] += 1
    total.update(c)
    print(f"{split:8s} " + "  ".join(f"{k} {c[k]}" for k in ("warnings", "first", "second", "third", "majority", "real", "unanimous")))
n = total["warnings"]
print(f"{'all':8s} warnings {n}; WARN by first {total['first'] / n:.2f}, second {total['second'] / n:.2f}, "
      f"third {total['third'] / n:.2f}, majority {total['majority'] / n:.2f}; real (majority WARN or INFO) "
      f"{total['real'] / n:.2f}; all three agree {total['unanimous'] / n:.2f}")
for rule, c in sorted(by_rule.items()):
    print(f"  {rule:28s} majority WARN {c['WARN']}, INFO {c['INFO']}, FALSE {c['FALSE']}")
