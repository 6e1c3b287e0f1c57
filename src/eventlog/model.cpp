// What the IR computes once the whole log is read.
#include "eventlog/model.hpp"

#include <algorithm>
#include <cmath>
#include <set>

namespace planlint::eventlog {

namespace {

Quantiles quantiles(std::vector<std::uint32_t>& v) {
  Quantiles q;
  if (v.empty()) return q;
  std::sort(v.begin(), v.end());
  // Spark's ranks (AppStatusStore.taskSummary): min(floor(p * n), n - 1) of the successful tasks.
  auto at = [&](double p) {
    auto n = v.size();
    return v[std::min(static_cast<std::size_t>(p * static_cast<double>(n)), n - 1)];
  };
  q.min = v.front();
  q.p05 = at(0.05);
  q.p25 = at(0.25);
  q.median = at(0.5);
  q.p75 = at(0.75);
  q.p95 = at(0.95);
  q.max = v.back();
  return q;
}

// Frames of the JDK and Scala's library: a stage named after one is named after a thread hand-over,
// not an operation.
bool runtime_frame(std::string_view frame) {
  for (std::string_view p : {"java.", "javax.", "jdk.", "sun.", "scala."})
    if (frame.substr(0, p.size()) == p) return true;
  return false;
}
// Frames of no user code: the runtime's, Spark's, Databricks', py4j's.
bool library_frame(std::string_view frame) {
  if (runtime_frame(frame)) return true;
  for (std::string_view p : {"org.apache.spark.", "com.databricks.", "py4j."})
    if (frame.substr(0, p.size()) == p) return true;
  return false;
}

// Spark 4 names some stages after the frame a task was handed over in ("$anonfun$withThreadLocalCaptured$2
// at CompletableFuture.java:1768"). The call stack it recorded (Details) has the user's frame further
// down: "com.acme.Etl$.main(Etl.scala:42)" -> "main at Etl.scala:42". "" when there is none.
std::string user_frame(const std::string& name, const std::string& details) {
  auto at = name.rfind(" at ");
  if (at == std::string::npos || details.empty()) return {};
  std::string where = name.substr(at + 4);  // "CompletableFuture.java:1768"
  std::string_view d(details);
  bool past = false;
  while (!d.empty()) {
    std::string_view line = d.substr(0, d.find('\n'));
    d.remove_prefix(std::min(d.size(), line.size() + 1));
    auto open = line.rfind('(');
    if (open == std::string_view::npos || line.back() != ')') continue;
    std::string_view frame = line.substr(0, open), file = line.substr(open + 1, line.size() - open - 2);
    if (!past) {
      if (file != where) continue;
      // Spark's own operations (treeAggregate at GradientDescent.scala) keep their name: only a
      // JDK or Scala frame is a hand-over to look past.
      if (!runtime_frame(frame)) return {};
      past = true;
      continue;
    }
    if (library_frame(frame) || file.find(':') == std::string_view::npos) continue;
    std::string_view method = frame.substr(frame.rfind('.') + 1);
    return std::string(method) + " at " + std::string(file);
  }
  return {};
}

}  // namespace

std::string blank_numbers(std::string_view text) {
  std::string k;
  for (char c : text)
    if (c < '0' || c > '9')
      k += c;
    else if (k.empty() || k.back() != '#')
      k += '#';
  return k;
}

std::uint64_t quantile(const std::vector<std::uint64_t>& sorted, double q) {
  if (sorted.empty()) return 0;
  auto n = sorted.size();
  return sorted[std::min(static_cast<std::size_t>(std::max(q, 0.0) * static_cast<double>(n)), n - 1)];
}

void Application::finish() {
  if (databricks_runtime.empty()) databricks_runtime = conf("spark.databricks.clusterUsageTags.sparkVersion");
  // Stages a job listed but never ran (their output was reused) are skipped, as the UI shows them.
  for (auto it = stages.begin(); it != stages.end();) {
    if (it->second.attempts == 0 && it->second.m.tasks == 0) {
      ++skipped_stages;
      it = stages.erase(it);
    } else {
      ++it;
    }
  }
  for (auto& [id, s] : stages) {
    s.q = quantiles(s.durations);
    if (std::string user = user_frame(s.name, s.details); !user.empty()) {
      s.spark_name = std::move(s.name);
      s.name = std::move(user);
    }
  }
  std::stable_sort(executors.begin(), executors.end(),
                   [](const ExecutorChange& a, const ExecutorChange& b) { return a.time < b.time; });
  for (const auto& [id, j] : jobs) {
    if (j.submitted > 0 && (first_event_time == 0 || j.submitted < first_event_time)) first_event_time = j.submitted;
    last_event_time = std::max(last_event_time, j.completed);
  }
  // A log cut before its stages ended still ran until its last task did.
  for (const auto& [id, s] : stages)
    for (const auto& t : s.tasks)
      if (t.launch > 0) last_event_time = std::max(last_event_time, t.launch + static_cast<std::int64_t>(t.duration));
  // Jobs name their SQL execution; it may start after them in the log, so they are joined here.
  for (auto& [id, x] : sql) x.jobs.clear();
  for (const auto& [jid, j] : jobs)
    if (auto it = sql.find(j.sql_execution); it != sql.end()) it->second.jobs.push_back(jid);
}

std::vector<FailureGroup> Application::failures(const Stage& s) const {
  // Reasons that differ only in numbers (executor and container ids, hosts like worker-2, exit
  // codes) are one reason: the executors and hosts are listed apart.
  auto key = [](const std::string& r) { return blank_numbers(r); };
  std::map<std::pair<std::string, TaskStatus>, FailureGroup> by;
  std::map<std::pair<std::string, TaskStatus>, std::set<std::uint32_t>> variants;
  for (const auto& t : s.tasks) {
    if (t.status == TaskStatus::success) continue;
    static const std::string kNone;
    const std::string& reason = t.reason < reasons.size() ? reasons[t.reason] : kNone;
    auto k = std::make_pair(key(reason), t.status);
    FailureGroup& g = by[k];
    variants[k].insert(t.reason);
    g.variants = variants[k].size();
    if (g.tasks == 0) {
      g.reason = reason;
      g.status = t.status;
    }
    ++g.tasks;
    if (t.speculative) ++g.speculative;
    if (t.executor < executor_ids.size()) {
      ++g.executors[executor_ids[t.executor]];
      ++g.hosts[executor_hosts[t.executor]];
    }
  }
  std::vector<FailureGroup> out;
  out.reserve(by.size());
  for (auto& [k, g] : by) out.push_back(std::move(g));
  std::stable_sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.tasks > b.tasks; });
  return out;
}

std::int64_t Application::duration_ms() const {
  std::int64_t start = started > 0 ? started : first_event_time;
  std::int64_t end = ended > 0 ? ended : last_event_time;
  for (const auto& [id, s] : stages) end = std::max(end, s.completed);
  return end > start && start > 0 ? end - start : 0;
}

int Application::max_cores() const {
  int now = 0, best = 0;
  for (const auto& c : executors) {
    now += c.cores;
    best = std::max(best, now);
  }
  if (best == 0) {
    // Local mode and logs without ExecutorAdded: the driver's cores, from local[N] or the config.
    std::string master = conf("spark.master");
    if (master.rfind("local[", 0) == 0) {
      std::string n = master.substr(6, master.find(']') - 6);
      if (!n.empty() && std::all_of(n.begin(), n.end(), [](char c) { return c >= '0' && c <= '9'; }))
        best = std::stoi(n);
    }
  }
  return best;
}

int Application::nodes() const {
  std::vector<std::string> hosts;
  for (const auto& c : executors)
    if (c.cores > 0 && c.id != "driver" && std::find(hosts.begin(), hosts.end(), c.host) == hosts.end())
      hosts.push_back(c.host);
  return static_cast<int>(hosts.size()) + 1;
}

std::vector<const Stage*> Application::slowest_stages(std::size_t n) const {
  std::vector<const Stage*> v;
  v.reserve(stages.size());
  for (const auto& [id, s] : stages) v.push_back(&s);
  std::stable_sort(v.begin(), v.end(), [](auto* a, auto* b) { return a->duration_ms() > b->duration_ms(); });
  if (v.size() > n) v.resize(n);
  return v;
}

std::string Application::engine() const {
  std::string runtime = conf("spark.databricks.clusterUsageTags.sparkVersion", databricks_runtime);
  if (runtime.find("photon") != std::string::npos || conf("spark.databricks.photon.enabled") == "true" ||
      conf("spark.databricks.clusterUsageTags.runtimeEngine") == "PHOTON")
    return "photon";
  if (conf("spark.plugins").find("com.nvidia.spark.SQLPlugin") != std::string::npos ||
      conf("spark.rapids.sql.enabled") == "true")
    return "rapids";
  return "spark";
}

std::int64_t Application::measured_bytes(const PlanMetricNode& node) const {
  auto it = accumulators.find(node.data_size_accumulator);
  return it == accumulators.end() ? -1 : it->second;  // -1 also when no update came
}

std::string Application::conf(const std::string& key, const std::string& fallback) const {
  auto it = config.find(key);
  return it == config.end() ? fallback : it->second;
}

}  // namespace planlint::eventlog
