// The event-log IR: one Spark application as its event log describes it, reduced while reading to
// what the diagnoses and reports need (per stage: sums, counts and the task durations).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace planlint::eventlog {

// Task durations (launch to finish) of a stage's successful tasks, in milliseconds, at the ranks the
// Spark UI and the History Server use (see quantile()).
struct Quantiles {
  std::uint32_t min = 0, p05 = 0, p25 = 0, median = 0, p75 = 0, p95 = 0, max = 0;
};

// The value at quantile q of ascending values, as Spark's AppStatusStore.taskSummary picks it:
// rank min(floor(q * n), n - 1). 0 for no values.
std::uint64_t quantile(const std::vector<std::uint64_t>& sorted, double q);

// Text with every run of digits as one '#': messages that differ only in ids, hosts or counts
// ("executor 4 lost", "executor 5 lost") are the same message.
std::string blank_numbers(std::string_view text);

enum class TaskStatus : std::uint8_t { success, failed, killed };

// One task attempt as it ended (about 72 bytes): what tells a skewed task from a straggler, what the
// failures were and where they ran, and what a simulation of another cluster size replays.
struct Task {
  std::int64_t launch = 0;     // epoch ms
  std::uint32_t duration = 0;  // launch to finish, ms
  std::uint32_t run_ms = 0;    // executor run time
  std::uint32_t cpu_ms = 0;    // executor CPU time
  std::uint32_t gc_ms = 0;
  std::uint64_t input_bytes = 0, input_records = 0;      // read from the data source
  std::uint64_t shuffle_bytes = 0, shuffle_records = 0;  // shuffle read
  std::uint32_t executor = UINT32_MAX;  // index into Application::executor_ids; UINT32_MAX: not recorded
  std::uint32_t reason = 0;             // failed and killed: index into Application::reasons (0: none)
  std::uint32_t stage_attempt = 0;
  TaskStatus status = TaskStatus::success;
  bool speculative = false;
};

struct StageMetrics {
  std::uint64_t tasks = 0, failed_tasks = 0, killed_tasks = 0;
  std::uint64_t input_bytes = 0, input_records = 0, output_bytes = 0, output_records = 0;
  std::uint64_t shuffle_read_bytes = 0, shuffle_read_records = 0, shuffle_write_bytes = 0, shuffle_write_records = 0;
  std::uint64_t memory_spill = 0, disk_spill = 0;
  std::uint64_t gc_ms = 0, run_ms = 0, cpu_ns = 0, task_ms = 0;  // task_ms: sum of launch-to-finish durations
  std::uint64_t failed_task_ms = 0;                              // of failed and killed tasks
  std::uint64_t peak_execution_memory = 0;                       // the largest of one task
  std::uint64_t peak_execution_memory_sum = 0;                   // summed over tasks, as Spark's stage figure
};

struct Stage {
  int id = 0;
  int attempts = 0;         // attempts submitted (history server: one row each; merged here)
  int failed_attempts = 0;  // attempts that ended with a failure reason
  std::string name;         // "collect at /jobs/etl.py:42": the user's frame (see Application::finish)
  std::string spark_name;   // the name Spark gave, when it named a JDK, Scala or Spark frame instead
  std::string details;      // the call stack Spark recorded
  std::string failure_reason;
  std::vector<std::string> operators;  // the plan operators its RDDs were made by (RDD scopes), in order
  std::uint64_t num_tasks = 0;         // partitions of the last attempt
  std::int64_t submitted = 0, completed = 0;
  std::uint32_t line = 0;  // the log line of the stage's first StageSubmitted (or StageCompleted) event
  int job = -1;
  std::int64_t sql_execution = -1;
  StageMetrics m;
  std::vector<int> parents;              // the stages whose output it reads (StageInfo "Parent IDs")
  std::vector<std::uint32_t> durations;  // successful tasks, every attempt
  std::vector<Task> tasks;               // every task end, in log order
  Quantiles q;                           // of `durations`, filled by finish()
  [[nodiscard]] std::int64_t duration_ms() const { return completed > submitted ? completed - submitted : 0; }
};

struct Job {
  int id = 0;
  std::int64_t submitted = 0, completed = 0;
  bool succeeded = true;
  std::vector<int> stages;
  std::int64_t sql_execution = -1;
  std::uint32_t line = 0;
};

// A node of the plan Spark reported with its SQL metrics (sparkPlanInfo), for the sizes measured at run time.
struct PlanMetricNode {
  std::string name;    // "SortMergeJoin", "Exchange", "BroadcastExchange"
  std::string simple;  // its one-line description: "SortMergeJoin [k#1], [k#2], Inner"
  std::vector<int> children;
  std::int64_t data_size_accumulator = -1;  // its "data size" metric, if it has one
};

struct SqlExecution {
  std::int64_t id = 0;
  std::string description, details;
  std::string plan;  // the physical plan text; AQE's last update replaces the first
  bool adaptive_update = false;
  std::int64_t started = 0, ended = 0;
  std::uint32_t line = 0;  // the log line the plan came from
  std::vector<int> jobs;
  std::vector<PlanMetricNode> nodes;  // the last sparkPlanInfo, preorder; nodes[0] is the root
};

struct ExecutorChange {
  std::int64_t time = 0;
  std::string id;
  std::string host;
  int cores = 0;       // added (> 0) or removed (< 0; 0 when the log never said it was added)
  bool added = false;  // an ExecutorAdded event (else ExecutorRemoved)
};

struct ReadProblem {
  std::uint32_t line = 0;  // 0: not about one line
  std::string message;
};

// The failed (or killed) tasks of a stage that ended for one reason: how many, on which executors
// and hosts (one bad node shows as one host).
struct FailureGroup {
  std::string reason;        // the first task's; others may differ in their numbers (ids, hosts)
  std::size_t variants = 1;  // distinct reasons grouped here
  TaskStatus status = TaskStatus::failed;
  std::uint64_t tasks = 0;
  std::uint64_t speculative = 0;                          // of them, speculative copies
  std::map<std::string, std::uint64_t> executors, hosts;  // tasks on each
};

struct Application {
  std::string path;
  std::string codec;
  std::string id, name, attempt, spark_version, user;
  std::string databricks_runtime;  // "13.3.x-aarch64-photon-scala2.12"
  std::int64_t started = 0, ended = 0, first_event_time = 0, last_event_time = 0;
  bool complete = false;                      // ApplicationEnd seen
  std::map<std::string, std::string> config;  // Spark Properties of the EnvironmentUpdate
  std::vector<ExecutorChange> executors;
  std::vector<std::string> executor_ids;    // as tasks name them; Task::executor indexes it
  std::vector<std::string> executor_hosts;  // the host each of executor_ids ran on, as its tasks say
  std::vector<std::string> reasons;         // why tasks failed or were killed; [0] is ""
  std::map<int, Stage> stages;
  std::map<int, Job> jobs;
  std::map<std::int64_t, SqlExecution> sql;
  std::uint64_t lines = 0, events = 0, bytes = 0;
  std::uint64_t malformed_lines = 0;
  std::uint64_t skipped_stages = 0;   // listed by a job, never run
  std::vector<ReadProblem> problems;  // malformed lines (first few), codec errors, truncation
  bool looks_like_event_log = false;  // some line was a Spark listener event
  // Totals of the SQL "data size" metrics the plans declare (task and driver updates summed).
  std::map<std::int64_t, std::int64_t> accumulators;
  // The measured bytes of a plan node's "data size", or -1 when none was recorded.
  [[nodiscard]] std::int64_t measured_bytes(const PlanMetricNode& node) const;

  // A stage's failed and killed tasks grouped by reason, the largest group first.
  [[nodiscard]] std::vector<FailureGroup> failures(const Stage& s) const;

  // After reading: quantiles, and whatever needs the whole log.
  void finish();
  [[nodiscard]] std::int64_t duration_ms() const;
  [[nodiscard]] int max_cores() const;  // the most cores alive at once
  [[nodiscard]] int nodes() const;
  [[nodiscard]] std::vector<const Stage*> slowest_stages(
      std::size_t n) const;                  // longest first           // distinct executor hosts, plus the driver
  [[nodiscard]] std::string engine() const;  // "photon", "rapids" or "spark"
  [[nodiscard]] std::string conf(const std::string& key, const std::string& fallback = {}) const;
};

}  // namespace planlint::eventlog
