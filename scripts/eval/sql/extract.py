#!/usr/bin/env python3
"""Extracts the SQL statements of the corpus laid out by layout.sh, as a SQL frontend would read them.

  extract.py CORPUS_DIR SPLIT > statements.jsonl

One JSON object per statement: repo, path, kind, statement number, text. Databricks SQL notebooks are
split at their cells (non-SQL magic cells dropped); dbt models have `{{ ... }}` read as a name and
`{% ... %}` / `{# ... #}` dropped; `.py` jobs and notebooks give their `spark.sql("...")` strings
(f-string fields and `.format` fields read as a name) and `%sql` cells; `${x}`, `$x` and `:param`
placeholders are read as a name. Statements are split at semicolons outside quotes and comments.
"""
import ast
import json
import os
import re
import sys

here = os.path.dirname(os.path.abspath(__file__))
corpus, split = sys.argv[1], sys.argv[2]
kinds = {}
with open(os.path.join(here, "manifest.tsv")) as f:
    next(f)
    for line in f:
        repo, commit, path, kind = line.rstrip("\n").split("\t")[:4]
        kinds[(repo, path)] = kind

NAME = "__p__"


def placeholders(s):
    s = re.sub(r"\{\{.*?\}\}", NAME, s, flags=re.S)
    s = re.sub(r"\{%.*?%\}", " ", s, flags=re.S)
    s = re.sub(r"\{#.*?#\}", " ", s, flags=re.S)
    s = re.sub(r"\$\{[^}]*\}", NAME, s)
    s = re.sub(r"\$[A-Za-z_]\w*", NAME, s)
    s = re.sub(r"(?<![:\w]):[A-Za-z_]\w*", NAME, s)
    return s


def split_statements(sql):
    out, cur, i, q = [], [], 0, None
    while i < len(sql):
        c = sql[i]
        if q:
            cur.append(c)
            if c == "\\" and i + 1 < len(sql):
                cur.append(sql[i + 1]); i += 2; continue
            if c == q:
                q = None
        elif c in "'\"`":
            q = c; cur.append(c)
        elif sql.startswith("--", i):
            j = sql.find("\n", i); j = len(sql) if j < 0 else j
            cur.append(sql[i:j]); i = j; continue
        elif sql.startswith("/*", i):
            j = sql.find("*/", i + 2); j = len(sql) if j < 0 else j + 2
            cur.append(sql[i:j]); i = j; continue
        elif c == ";":
            out.append("".join(cur)); cur = []
        else:
            cur.append(c)
        i += 1
    out.append("".join(cur))
    # a statement of only comments and blanks is none
    def empty(s):
        s = re.sub(r"--[^\n]*", "", s); s = re.sub(r"/\*.*?\*/", "", s, flags=re.S)
        return not s.strip()
    return [s for s in out if not empty(s)]


def notebook_cells(text):
    cells = re.split(r"^-- COMMAND -+\s*$", text, flags=re.M)
    for c in cells:
        lines = [l for l in c.splitlines() if not l.startswith("-- Databricks notebook source")
                 and not l.startswith("# Databricks notebook source")]
        magic = [l for l in lines if l.startswith("-- MAGIC")]
        if magic and not any(l.strip() in ("-- MAGIC %sql",) for l in magic):
            continue  # a markdown, Python or shell cell
        yield "\n".join(l[len("-- MAGIC "):] if l.startswith("-- MAGIC ") else l for l in lines
                        if l.strip() != "-- MAGIC %sql")


def python_sql(text, path):
    out = []
    if path.endswith(".ipynb"):
        try:
            nb = json.loads(text)
        except ValueError:
            return out
        for c in nb.get("cells", []):
            src = "".join(c.get("source", [])) if isinstance(c.get("source"), list) else c.get("source", "")
            if src.lstrip().startswith(("%sql", "%%sql")):
                out.append(src.lstrip().split("\n", 1)[1] if "\n" in src.lstrip() else "")
            else:
                out += python_sql(src, path + ".py")
        return out
    # Databricks .py notebooks: "# MAGIC %sql" cells
    for cell in re.split(r"^# COMMAND -+\s*$", text, flags=re.M):
        lines = cell.strip("\n").splitlines()
        if any(l.strip() == "# MAGIC %sql" for l in lines):
            out.append("\n".join(l[len("# MAGIC "):] if l.startswith("# MAGIC ") else l[7:] for l in lines
                                 if l.startswith("# MAGIC") and l.strip() != "# MAGIC %sql"))
        elif lines and lines[0].strip() in ("%sql", "%%sql"):
            out.append("\n".join(lines[1:]))
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):
        return out
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "sql" \
                and node.args:
            arg = node.args[0]
            if isinstance(arg, ast.Call) and isinstance(arg.func, ast.Attribute) and arg.func.attr == "format" \
                    and isinstance(arg.func.value, ast.Constant) and isinstance(arg.func.value.value, str):
                out.append(re.sub(r"\{[^{}]*\}", NAME, arg.func.value.value))
            elif isinstance(arg, ast.Constant) and isinstance(arg.value, str):
                out.append(arg.value)
            elif isinstance(arg, ast.JoinedStr):
                out.append("".join(v.value if isinstance(v, ast.Constant) else NAME for v in arg.values))
    return out


root = os.path.join(corpus, split)
for (repo, path), kind in sorted(kinds.items()):
    f = os.path.join(root, repo, path)
    if not os.path.isfile(f):
        continue
    text = open(f, encoding="utf-8", errors="replace").read()
    if kind == "python-with-sql" or path.endswith((".py", ".ipynb", ".scala")):
        sources = python_sql(text, path) if not path.endswith(".scala") else []
    elif kind == "databricks-sql-notebook" or text.lstrip().startswith(("-- Databricks notebook source",
                                                                         "# Databricks notebook source")):
        sources = list(notebook_cells(text))
    else:
        sources = [text]
    n = 0
    for src in sources:
        for st in split_statements(placeholders(src)):
            n += 1
            print(json.dumps({"repo": repo, "path": path, "kind": kind, "n": n, "text": st}))
