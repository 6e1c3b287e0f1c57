// What the IR computes once the whole log is read.
#include "eventlog/model.hpp"

#include <algorithm>
#include <cmath>

namespace planlint::eventlog {

namespace {

Quantiles quantiles(std::vector<std::uint32_t>& v) {
  Quantiles q;
  if (v.empty()) return q;
  std::sort(v.begin(), v.end());
  // Nearest rank on the sorted durations, as the Spark UI's summary table does.
  auto at = [&](double p) { return v[static_cast<std::size_t>(std::llround(p * static_cast<double>(v.size() - 1)))]; };
  q.min = v.front();
  q.p25 = at(0.25);
  q.median = at(0.5);
  q.p75 = at(0.75);
  q.max = v.back();
  return q;
}

}  // namespace

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
  for (auto& [id, s] : stages) s.q = quantiles(s.durations);
  std::stable_sort(executors.begin(), executors.end(),
                   [](const ExecutorChange& a, const ExecutorChange& b) { return a.time < b.time; });
  for (const auto& [id, j] : jobs) {
    if (j.submitted > 0 && (first_event_time == 0 || j.submitted < first_event_time)) first_event_time = j.submitted;
    last_event_time = std::max(last_event_time, j.completed);
  }
  // Jobs name their SQL execution; it may start after them in the log, so they are joined here.
  for (auto& [id, x] : sql) x.jobs.clear();
  for (const auto& [jid, j] : jobs)
    if (auto it = sql.find(j.sql_execution); it != sql.end()) it->second.jobs.push_back(jid);
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
