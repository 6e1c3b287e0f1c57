// unused-noqa: a `# noqa` directive that suppresses nothing (opt-in, reported by the source engine).
#include "lint/rule.hpp"

namespace planlint::rules {

using namespace planlint::lint;

extern const RuleInfo kUnusedNoqa{"SPK003",
                                  "unused-noqa",
                                  "A noqa directive suppresses no finding",
                                  Severity::warning,
                                  FixAvailability::always,
                                  Impact::low,
                                  R"md(## What it does
Reports planlint codes in a `# noqa: RULE` comment that suppress nothing on their line: the finding
they were written for is gone, or the rule named never fires there. Opt-in: enable it with
`--extend-select unused-noqa` (or `extend-select = ["unused-noqa"]` in the configuration).

The comment is shared with ruff and flake8, so only planlint's own codes are judged (ids, names and
the 0.1 `PL` ids): a bare `# noqa` and codes of other tools (`E501`, `F401`) are theirs to report
(ruff's RUF100). When every code of the comment is planlint's and unused, the comment is removed;
when other codes stay (`# noqa: E501, SPK203`), the finding names the code to drop.

## Why is this bad?
A stale suppression hides the next real finding on that line, and tells readers a problem is
there when it is not.

## Example (PySpark)
```python
rows = spark.table("t").limit(10).collect()  # noqa: collect-large
```
Use instead:
```python
rows = spark.table("t").limit(10).collect()
```

## Fix safety
Safe: removing a directive made only of unused planlint codes changes no code. A directive that also
holds other tools' codes is shown, not edited.

## Options
None.
)md",
                                  true};

}  // namespace planlint::rules
