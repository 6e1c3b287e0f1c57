// "What if the cluster were another size": the application's tasks replayed on N executors.
//
// The model (Sparklens's, for the IR planlint reads): the application is driver time (no job
// running) plus its jobs. Jobs that overlapped in the log run together as one group; within a
// group a stage starts when the stages it reads from have ended, and its tasks (every attempt,
// with the durations the log recorded) go, in launch order, to whichever core is free first. The
// driver time and each task's duration stay as they were: only the number of cores changes. With
// unlimited cores the simulation gives the critical path: the time no cluster size removes.
#pragma once

#include <cstdint>
#include <vector>

#include "eventlog/model.hpp"

namespace planlint::eventlog {

struct WhatIfRow {
  int executors = 0;
  int slots = 0;             // tasks that run at once: executors × slots per executor
  std::int64_t wall_ms = 0;  // simulated application duration
  double node_hours = 0;     // wall time × nodes (executor hosts + the driver)
  bool as_run = false;       // the size the log ran with
};

struct WhatIf {
  int executors = 0;              // at the application's widest
  int cores_per_executor = 0;     // as the log's executors had them
  int slots_per_executor = 0;     // tasks one executor ran at once: its cores, or more when the log shows more
  int executors_per_node = 1;     // executors that shared a host
  std::int64_t measured_ms = 0;   // the application's duration in the log
  std::int64_t simulated_ms = 0;  // the same cluster, simulated (its difference from measured is the model's error)
  std::int64_t driver_ms = 0;     // no job running
  std::int64_t critical_path_ms = 0;
  std::vector<WhatIfRow> rows;  // the sizes asked for, and the size it ran with
  bool usable = false;          // false: the log has no tasks to replay
};

// The application replayed on `slots` cores (0: unlimited); driver time included.
std::int64_t simulate(const Application& app, int slots);

// The table for the executor counts asked for (the log's own size is added when missing).
WhatIf what_if(const Application& app, const std::vector<int>& executor_counts);

}  // namespace planlint::eventlog
