// python-syntax: a file or notebook cell that is not valid Python 3 (reported by the source frontend).
#include "lint/rule.hpp"

namespace planlint::rules {

using namespace planlint::lint;

extern const RuleInfo kPythonSyntax{"SPK001",
                                    "python-syntax",
                                    "A file or cell could not be parsed as Python 3",
                                    Severity::error,
                                    FixAvailability::never,
                                    Impact::low,
                                    R"md(## What it does
Reports a Python file or notebook cell that does not parse as Python 3 (stray magics outside
Jupyter, unbalanced brackets), and notebooks whose JSON cannot be read; the other cells and files
are still linted. An error, except three `info` cases where nothing is broken or hidden: Python 2
code (a `print` statement, a backquoted repr: working code of its time, not analysed); a cell that fails at a
template's placeholder (`df = <FILL-IN>`, `<YOUR CODE HERE>`: upper-case words in angle brackets;
`<<your_project_name>>`; `[ENTER MODEL NAME HERE]`: upper-case words in square brackets; outside
strings and comments), unfinished on purpose; a notebook cell that names nothing of Spark (a
scratch cell such as `df.`).

Notebook cells keep IPython's syntax out of the way: magics (`%time`,
`%%sql`), shell escapes (`!ls`), `pip install ...` without `%`, help requests (`df.groupBy?`,
`?F.col`); so do `.py` notebooks in the percent format (cells opened by `# %%`: Jupytext, VS Code,
Spyder), which run in an IPython kernel. In any other `.py` file they are syntax errors.

## Why is this bad?
planlint cannot see the Spark code in a cell it cannot parse, so findings there are missed.

## Example (PySpark)
```python
def f(:
    pass
```
Use instead:
```python
def f():
    pass
```

## Fix safety
No fix.

## Options
None.
)md"};

}  // namespace planlint::rules
