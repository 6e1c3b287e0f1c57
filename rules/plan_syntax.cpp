// plan-syntax: a line of plan text planlint cannot read (reported by the plan frontend, not a check).
#include "lint/rule.hpp"

namespace planlint::rules {

using namespace planlint::lint;

extern const RuleInfo kPlanSyntax{"SPK000",
                                  "plan-syntax",
                                  "A line of plan text could not be read",
                                  Severity::error,
                                  FixAvailability::never,
                                  Impact::low,
                                  R"md(## What it does
Reports a line of plan text that planlint cannot read: a tree branch without an operator, a
branch with no parent above it, a details block for an operator that is not in the tree (details
blocks pasted without any tree are a fragment: each block is read as an operator of its own), a
formatted plan's operators whose details blocks are missing after the last one printed (a paste cut
short; one missing between printed blocks is how the engine printed it), control characters. The rest
of the plan is still read and linted.

## Why is this bad?
A damaged plan (cut while copying, mixed with log lines) can hide findings on the lines that were
lost.

## Example
```plan
== Physical Plan ==
Project [a#1]
+- 42
```
Use instead:
```plan
== Physical Plan ==
Project [a#1]
+- Range (0, 10, step=1, splits=2)
```

## Fix safety
No fix: copy the plan again from `explain()` output.

## Options
None.
)md"};

}  // namespace planlint::rules
