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
Reports a Python file or notebook cell that does not parse as Python 3 (Python 2 `print`
statements, stray magics outside Jupyter, unbalanced brackets), and notebooks whose JSON cannot be
read. The other cells and files are still linted; the broken cell is not. Python 2 code (a `print`
statement) is working code of its time, not broken: it is an `info` saying the file is not analysed.
So is a cell that fails at a template's placeholder (`df = <FILL-IN>`, `<YOUR CODE HERE>`: upper-case
words in angle brackets, outside a string or a comment, anywhere in the cell), as in exercise
notebooks: it is unfinished on purpose. And so is a notebook cell that names nothing of Spark (no
session, read, write, SQL, DataFrame method, UDF, RDD or `display`): a scratch cell (`df.`) hides
nothing from the analysis, and the notebook's other cells run. A `.py` file that does not parse
fails as a whole: an error.
Notebook cells keep IPython's syntax out of the way: magics (`%time`, `%%sql`), shell escapes
(`!ls`), and `pip install ...` / `conda install ...` written without `%` (IPython's automagic).

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
