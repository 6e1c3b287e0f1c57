#!/usr/bin/env python3
"""Cuts a planlint JSON report of one split into labelling packets for blind reviewers.

usage: packets.py REPORT.json SPLIT_DIR OUT_DIR N [--only-unlabelled LABELS.tsv ...]
Each packet holds whole repositories (every file of them, so misses can be searched), about the same
number of findings each: findings.tsv (id, rule, file, line, column, message; no severity and nothing
of planlint's implementation) and files.txt. With --only-unlabelled, findings whose (rule, file, line)
already has a label are left out (files are still listed for the miss search).
"""
import collections
import json
import os
import pathlib
import sys

report, root, out, n = sys.argv[1], pathlib.Path(sys.argv[2]), pathlib.Path(sys.argv[3]), int(sys.argv[4])
known = set()
if "--only-unlabelled" in sys.argv:
    for name in sys.argv[sys.argv.index("--only-unlabelled") + 1:]:
        for i, row in enumerate(open(name, encoding="utf-8")):
            f = row.rstrip("\n").split("\t")
            if i and len(f) >= 4:
                known.add((f[1], os.path.normpath(f[2]), int(f[3])))


def repo_of(path):
    return "/".join(pathlib.PurePath(path).parts[:2])


by_repo = collections.defaultdict(list)
for d in json.load(open(report))["diagnostics"]:
    f = os.path.normpath(d["file"])
    if (d["rule"]["name"], f, d["line"]) in known:
        continue
    by_repo[repo_of(f)].append((d["rule"]["name"], f, d["line"], d["column"], " ".join(d["message"].split())))
files = collections.defaultdict(list)
for p in sorted(root.rglob("*")):
    if p.is_file():
        rel = str(p.relative_to(root))
        files[repo_of(rel)].append(rel)
packets = [[] for _ in range(n)]
for repo in sorted(files, key=lambda r: -len(by_repo.get(r, [])) - len(files[r]) / 10):
    min(packets, key=lambda p: sum(len(by_repo.get(r, [])) + len(files[r]) / 10 for r in p)).append(repo)
for i, repos in enumerate(packets, 1):
    d = out / f"packet-{i}"
    d.mkdir(parents=True, exist_ok=True)
    with open(d / "findings.tsv", "w", encoding="utf-8") as f:
        f.write("id\trule\tfile\tline\tcolumn\tmessage\n")
        k = 0
        for r in sorted(repos):
            for rule, path, line, col, msg in sorted(by_repo.get(r, []), key=lambda x: (x[1], x[2], x[0])):
                k += 1
                f.write(f"{i}-{k}\t{rule}\t{path}\t{line}\t{col}\t{msg}\n")
    with open(d / "files.txt", "w", encoding="utf-8") as f:
        for r in sorted(repos):
            f.writelines(p + "\n" for p in files[r])
    print(f"packet-{i}: {len(repos)} repos, {k} findings, {sum(len(files[r]) for r in repos)} files")
