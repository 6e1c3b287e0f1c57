// unused-noqa: a `# noqa` directive that suppresses nothing (opt-in, reported by the source engine).
#include "lint/rule.hpp"

namespace planlint::rules {

using namespace planlint::lint;

extern const RuleInfo kUnusedNoqa{"PL017",
                                  "unused-noqa",
                                  "A noqa directive suppresses no finding",
                                  Severity::warning,
                                  FixAvailability::always,
                                  R"md(## What it does
Reports a `# noqa` or `# noqa: RULE` comment that suppresses nothing on its line: the finding it
was written for is gone, or the rule named never fires there. Opt-in: enable it with
`--extend-select unused-noqa` (or `extend-select = ["unused-noqa"]` in the configuration).

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
Safe: removing the directive changes no code.

## Options
None.
)md",
                                  true};

}  // namespace planlint::rules
