#!/usr/bin/env python3
"""Chooses the development corpus for the source rules from local mirrors of public repositories and
writes the manifest (repository, commit, path). Run once when the corpus grows; the manifest is what
is committed, never the files.

usage: choose.py MIRRORS_DIR > scripts/corpus/manifest.tsv
MIRRORS_DIR holds one bare-or-working git directory per repository, named owner+name/repo.
"""
import hashlib
import pathlib
import subprocess
import sys

PER_REPO = 30  # at most this many files from one repository, so no author dominates

def git(repo, *args):
    return subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True).stdout

def main():
    mirrors = pathlib.Path(sys.argv[1])
    print("repository\tcommit\tpath")
    for d in sorted(mirrors.iterdir()):
        repo = d / "repo"
        if not repo.exists():
            continue
        owner_name = d.name.replace("+", "/", 1)
        commit = git(repo, "rev-parse", "HEAD").decode().strip()
        paths = git(repo, "ls-tree", "-r", "--name-only", "HEAD").decode().splitlines()
        chosen = []
        for p in paths:
            if not (p.endswith(".py") or p.endswith(".ipynb")):
                continue
            if "/test" in p or p.startswith("test") or "setup.py" in p or "__init__" in p:
                continue
            try:
                blob = git(repo, "show", f"HEAD:{p}")
            except subprocess.CalledProcessError:
                continue
            if len(blob) > 400_000 or b"spark" not in blob.lower():
                continue
            # DataFrame code, not only RDD or library plumbing.
            if not any(k in blob for k in (b".select(", b".join(", b".groupBy(", b".filter(", b"udf", b".collect(",
                                            b".withColumn(", b"spark.sql(", b"conf.set", b".write")):
                continue
            chosen.append(p)
        chosen.sort(key=lambda p: hashlib.sha1(f"{owner_name}/{p}".encode()).hexdigest())
        for p in sorted(chosen[:PER_REPO]):
            print(f"{owner_name}\t{commit}\t{p}")

if __name__ == "__main__":
    main()
