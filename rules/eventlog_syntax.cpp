// eventlog-syntax: a line of an event log that is not a JSON event (reported by the reader).
#include "lint/rule.hpp"

namespace planlint::rules {

using namespace planlint::lint;

extern const RuleInfo kEventLogSyntax{"SPK002",
                                      "eventlog-syntax",
                                      "A line of an event log could not be read",
                                      Severity::error,
                                      FixAvailability::never,
                                      Impact::low,
                                      R"md(## What it does
Reports a line of a Spark event log that is not a JSON event: a driver log line mixed into the
file, a line cut short because the application was still running (or crashed) when the log was
copied, a corrupted block. The line is skipped and the rest of the log is still analysed; the
first 20 such lines are reported with their line numbers, and the report counts them all.

## Why is this bad?
Every skipped line is an event the diagnosis did not see: a lost `TaskEnd` leaves a task out of
its stage's figures, a lost `StageCompleted` leaves a stage without an end.

## Example
```text
{"Event":"SparkListenerTaskEnd","Stage ID":3,"Task Info":{"Launch Ti
```
Use instead: the complete log, as Spark wrote it (copy `.inprogress` logs again once the
application has ended).

## Fix safety
There is nothing to fix in code; planlint never changes an event log.

## Options
None.
)md"};

}  // namespace planlint::rules
