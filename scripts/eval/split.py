#!/usr/bin/env python3
"""Splits the production corpus by repository into dev and test, before any finding is read.

usage: split.py REPOS.tsv [REPOS.tsv ...] > repos.tsv
Each input has the columns repository, commit, kind, description. A repository goes to test when the
first byte of sha256("planlint-eval:" + repository) is below 102 (40 %), else to dev: the split depends
on the name alone, so adding repositories never moves one that is already placed.
"""
import hashlib
import sys

rows = {}
for name in sys.argv[1:]:
    with open(name, encoding="utf-8") as f:
        for n, line in enumerate(f):
            if n == 0 or not line.strip():
                continue
            repo, commit, kind, description = (line.rstrip("\n").split("\t") + ["", "", ""])[:4]
            rows[repo] = (commit, kind, description)
print("repository\tcommit\tkind\tsplit\tdescription")
for repo in sorted(rows):
    commit, kind, description = rows[repo]
    split = "test" if hashlib.sha256(("planlint-eval:" + repo).encode()).digest()[0] < 102 else "dev"
    print(f"{repo}\t{commit}\t{kind}\t{split}\t{description}")
