"""planlint from Python: lint a PySpark DataFrame's plan, plan text, or a job or notebook on disk.

    >>> import planlint
    >>> planlint.check(df)                  # df.explain(mode="extended"), linted
    >>> planlint.check(open("q1.plan").read())
    >>> planlint.check_file("etl.ipynb")

Each call runs the planlint binary installed with this package and returns a `Findings` list of
`Finding` objects; in Jupyter and Databricks the list renders as a table (rule, operator or source
line, fix). Nothing here imports pyspark: a DataFrame is anything with an `explain` method.
"""

from __future__ import annotations

import contextlib
import dataclasses
import html
import io
import json
import os
import shutil
import subprocess
import sys
import sysconfig
from typing import Any, Iterable, List, Optional, Sequence

__all__ = ["check", "check_file", "find_planlint_bin", "Finding", "Findings", "PlanlintError"]


class PlanlintError(RuntimeError):
    """planlint could not read or lint the input (its exit status 2), or could not be run at all."""


def find_planlint_bin() -> str:
    """The planlint binary: $PLANLINT_BIN, else the one installed with this package, else PATH."""
    override = os.environ.get("PLANLINT_BIN")
    if override:
        return override
    exe = "planlint"
    candidates = [sysconfig.get_path("scripts")]
    user_scheme = f"{os.name}_user"
    if user_scheme in sysconfig.get_scheme_names():
        candidates.append(sysconfig.get_path("scripts", scheme=user_scheme))
    for folder in candidates:
        path = os.path.join(folder, exe)
        if os.path.isfile(path) and os.access(path, os.X_OK):
            return path
    found = shutil.which(exe)
    if found:
        return found
    raise PlanlintError("the planlint binary was not found (reinstall the wheel, or set PLANLINT_BIN)")


@dataclasses.dataclass(frozen=True)
class Finding:
    """One diagnostic. `line`/`column` are 1-based in the input; for notebooks `cell` is the cell's
    number as planlint prints it (1-based, counting every cell) and `cell_line` the line inside it. `source` is the text of
    the flagged line (the plan operator or the source line), when it could be read back."""

    rule: str
    rule_id: str
    severity: str
    message: str
    file: str
    line: int
    column: int
    cell: Optional[int] = None
    cell_line: Optional[int] = None
    source: Optional[str] = None
    fix_title: Optional[str] = None
    fix: Optional[str] = None
    impact: Optional[str] = None

    def location(self) -> str:
        if self.cell is not None:
            return f"{self.file}:cell {self.cell}:{self.cell_line}:{self.column}"
        return f"{self.file}:{self.line}:{self.column}"

    def __str__(self) -> str:
        text = f"{self.location()}: {self.severity}: {self.message} [{self.rule}]"
        if self.fix:
            text += f"\n  fix: {self.fix}"
        return text


class Findings(List[Finding]):
    """The findings of one check, in planlint's order; renders as an HTML table in notebooks."""

    def __init__(self, items: Iterable[Finding] = (), errors: Sequence[str] = ()):
        super().__init__(items)
        self.errors = list(errors)

    def __str__(self) -> str:
        if not self:
            return "planlint: no findings"
        return "\n".join(str(f) for f in self)

    def __repr__(self) -> str:
        return f"<planlint.Findings: {len(self)} finding{'s' if len(self) != 1 else ''}>"

    def _repr_html_(self) -> str:
        if not self:
            return "<p><b>planlint</b>: no findings</p>"
        rows = []
        for f in self:
            where = html.escape(f.location())
            source = f"<pre style='margin:0'>{html.escape(f.source)}</pre>" if f.source else ""
            fix = html.escape(f.fix or f.fix_title or "")
            rows.append(
                "<tr>"
                f"<td><code>{html.escape(f.rule)}</code><br>"
                f"<small>{html.escape(f.rule_id)} {html.escape(f.severity)}</small></td>"
                f"<td><small>{where}</small>{source}</td>"
                f"<td>{html.escape(f.message)}</td>"
                f"<td>{fix}</td>"
                "</tr>"
            )
        head = "<tr><th>rule</th><th>line</th><th>finding</th><th>fix</th></tr>"
        count = f"{len(self)} finding{'s' if len(self) != 1 else ''}"
        return (
            f"<table class='planlint'><caption><b>planlint</b>: {count}</caption>"
            f"<thead>{head}</thead><tbody>{''.join(rows)}</tbody></table>"
        )


def _run(args: Sequence[str], stdin: Optional[str]) -> dict:
    cmd = [find_planlint_bin(), "--format", "json", *args]
    try:
        proc = subprocess.run(cmd, input=stdin, capture_output=True, text=True, encoding="utf-8", errors="replace")
    except OSError as err:
        raise PlanlintError(f"could not run {cmd[0]}: {err}") from err
    if proc.returncode not in (0, 1):
        raise PlanlintError(proc.stderr.strip() or f"planlint exited with status {proc.returncode}")
    try:
        return json.loads(proc.stdout)
    except ValueError as err:
        raise PlanlintError(f"planlint printed no JSON report: {err}") from err


def _lines_of_file(path: str) -> List[str]:
    try:
        with open(path, encoding="utf-8", errors="replace") as fh:
            return fh.read().splitlines()
    except OSError:
        return []


def _notebook_cells(path: str) -> List[List[str]]:
    try:
        with open(path, encoding="utf-8") as fh:
            cells = json.load(fh).get("cells", [])
    except (OSError, ValueError, AttributeError):
        return []
    out = []
    for cell in cells:
        src = cell.get("source", "") if isinstance(cell, dict) else ""
        out.append(("".join(src) if isinstance(src, list) else str(src)).splitlines())
    return out


def _findings(report: dict, text_lines: Optional[List[str]] = None, path: Optional[str] = None) -> Findings:
    cells: Optional[List[List[str]]] = None
    file_lines: Optional[List[str]] = text_lines
    items = []
    for d in report.get("diagnostics", []):
        cell = d.get("cell")
        source = None
        if cell is not None and path is not None:
            if cells is None:
                cells = _notebook_cells(path)
            lines = cells[cell - 1] if 1 <= cell <= len(cells) else []
            number = d.get("cell_line", 0)
        else:
            if file_lines is None:
                file_lines = _lines_of_file(path) if path else []
            lines = file_lines
            number = d.get("line", 0)
        if 1 <= number <= len(lines):
            source = lines[number - 1].strip()
        fix = d.get("fix") or {}
        items.append(
            Finding(
                rule=d["rule"]["name"],
                rule_id=d["rule"]["id"],
                severity=d.get("severity", "warning"),
                message=d.get("message", ""),
                file=d.get("file", ""),
                line=d.get("line", 0),
                column=d.get("cell_column", d.get("column", 0)) if cell is not None else d.get("column", 0),
                cell=cell,
                cell_line=d.get("cell_line"),
                source=source,
                fix_title=fix.get("title"),
                fix=fix.get("suggestion") or fix.get("title"),
                impact=d.get("impact"),
            )
        )
    errors = [f"{e.get('file', '')}: {e.get('message', '')}" for e in report.get("errors", [])]
    return Findings(items, errors)


def _plan_text(obj: Any) -> str:
    if isinstance(obj, bytes):
        return obj.decode("utf-8", errors="replace")
    if isinstance(obj, str):
        return obj
    explain = getattr(obj, "explain", None)
    if not callable(explain):
        raise TypeError("planlint.check() takes a DataFrame (anything with .explain()) or plan text")
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        try:
            result = explain(mode="extended")
        except TypeError:  # PySpark before 3.0: explain(extended=True)
            result = explain(True)
    text = buf.getvalue()
    if not text.strip() and isinstance(result, str):
        text = result
    if not text.strip():
        # Nothing to lint is not a clean plan: explain() wrote elsewhere (a JVM console) or nothing.
        raise PlanlintError("explain printed no plan")
    return text


def check(obj: Any, *, args: Sequence[str] = (), name: str = "plan") -> Findings:
    """Lint a DataFrame's plan (`obj.explain(mode="extended")`, captured from stdout) or plan text.
    `args` are extra planlint options (e.g. ["--select", "missing-broadcast"]); `name` is the file
    name findings report."""
    text = _plan_text(obj)
    report = _run([*args, "-", "--stdin-filename", name], text)
    found = _findings(report, text_lines=text.splitlines())
    if found.errors:
        raise PlanlintError("; ".join(found.errors))
    return found


def check_file(path: "os.PathLike[str] | str", *, args: Sequence[str] = ()) -> Findings:
    """Lint a plan, a PySpark job, or a Jupyter or Databricks notebook on disk."""
    path = os.fspath(path)
    report = _run([*args, "--", path], None)
    found = _findings(report, path=path)
    if found.errors:
        raise PlanlintError("; ".join(found.errors))
    return found


def main() -> None:
    """`python -m planlint ARGS`: the planlint command line."""
    binary = find_planlint_bin()
    if os.name == "posix":
        os.execv(binary, [binary, *sys.argv[1:]])
    sys.exit(subprocess.call([binary, *sys.argv[1:]]))
