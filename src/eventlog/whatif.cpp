// The cluster-size simulation: see whatif.hpp for the model.
#include "eventlog/whatif.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <queue>
#include <set>

namespace planlint::eventlog {

namespace {

struct Span {
  std::int64_t start = 0, end = 0;
};

// A group of jobs that overlapped, and the stages that ran in it.
struct Group {
  Span span;
  std::vector<const Stage*> stages;
};

struct Replay {
  std::int64_t driver_ms = 0, jobs_ms = 0;
};

// How many tasks ran at each instant of the log: the slots the run had, and when one was free.
class Timeline {
 public:
  explicit Timeline(const Application& app) {
    std::vector<std::pair<std::int64_t, int>> edges;
    for (const auto& [id, s] : app.stages)
      for (const auto& t : s.tasks)
        if (t.launch > 0) {
          edges.emplace_back(t.launch, 1);
          edges.emplace_back(t.launch + static_cast<std::int64_t>(t.duration), -1);
        }
    std::sort(edges.begin(), edges.end());  // at one instant, ends (-1) before starts
    int now = 0;
    for (const auto& [time, change] : edges) {
      now += change;
      most_ = std::max(most_, now);
      if (!times_.empty() && times_.back() == time)
        running_.back() = now;
      else {
        times_.push_back(time);
        running_.push_back(now);
      }
    }
  }
  // The most tasks that ran at once.
  [[nodiscard]] int most() const { return most_; }
  // For each change, the first instant from it on when fewer than `slots` tasks ran.
  void set_slots(int slots) {
    next_free_.assign(times_.size(), INT64_MAX);
    for (std::size_t k = times_.size(); k-- > 0;)
      next_free_[k] = running_[k] < slots ? times_[k] : (k + 1 < times_.size() ? next_free_[k + 1] : INT64_MAX);
  }
  // The first instant at or after t when a slot was free.
  [[nodiscard]] std::int64_t free_from(std::int64_t t) const {
    auto it = std::upper_bound(times_.begin(), times_.end(), t);
    if (it == times_.begin()) return t;  // nothing ran yet
    auto k = static_cast<std::size_t>(it - times_.begin()) - 1;
    if (next_free_[k] == times_[k]) return t;  // free at the change before t, so at t
    return next_free_[k];
  }

 private:
  std::vector<std::int64_t> times_;
  std::vector<int> running_;
  std::vector<std::int64_t> next_free_;
  int most_ = 0;
};

// What a stage spent outside its tasks, as the log shows it: from its submission to its first task
// (less any wait for a free slot, which the replay itself models), and from its last task's end to
// its completion (scheduling, commit, driver-side work). The same on any cluster size.
struct Overhead {
  std::int64_t head = 0, tail = 0;
};

// A stage's task durations in the order its tasks were launched (the log lists them as they ended).
std::vector<std::uint32_t> launch_order(const Stage& s) {
  std::vector<std::pair<std::int64_t, std::uint32_t>> v;
  v.reserve(s.tasks.size());
  for (const auto& t : s.tasks) v.emplace_back(t.launch, t.duration);
  std::stable_sort(v.begin(), v.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<std::uint32_t> out;
  out.reserve(v.size());
  for (const auto& [launch, d] : v) out.push_back(d);
  return out;
}

struct Model {
  std::vector<Group> groups;
  std::map<int, Overhead> overhead;                     // by stage id
  std::map<int, std::vector<std::uint32_t>> durations;  // by stage id, in launch order
  std::int64_t start = 0, total = 0;
  int slots_as_run = 1;
  // When each slot of the run as it was came up (executors added as the run went), earliest first.
  std::vector<std::int64_t> slot_from;
};

std::int64_t first_launch(const Stage& s) {
  std::int64_t t = 0;
  for (const auto& task : s.tasks)
    if (task.launch > 0 && (t == 0 || task.launch < t)) t = task.launch;
  return t;
}

std::int64_t last_finish(const Stage& s) {
  std::int64_t t = 0;
  for (const auto& task : s.tasks)
    if (task.launch > 0) t = std::max(t, task.launch + static_cast<std::int64_t>(task.duration));
  return t;
}

// When a stage ended: its completion, or (a log cut before it) its last task's end.
std::int64_t stage_end(const Stage& s) { return std::max(s.completed, last_finish(s)); }

std::vector<Group> groups_of(const Application& app) {
  std::vector<Span> spans;
  for (const auto& [id, j] : app.jobs) {
    if (j.submitted <= 0) continue;
    Span sp{j.submitted, std::max(j.submitted, j.completed)};
    for (int sid : j.stages)
      if (auto it = app.stages.find(sid); it != app.stages.end()) sp.end = std::max(sp.end, stage_end(it->second));
    spans.push_back(sp);
  }
  // Stages no job's time covers (a log cut before its JobStart) bring their own span.
  for (const auto& [id, s] : app.stages) {
    std::int64_t start = s.submitted > 0 ? s.submitted : first_launch(s);
    if (start > 0) spans.push_back({start, std::max(start, stage_end(s))});
  }
  std::sort(spans.begin(), spans.end(), [](const Span& a, const Span& b) { return a.start < b.start; });
  std::vector<Group> groups;
  for (const auto& sp : spans) {
    if (!groups.empty() && sp.start < groups.back().span.end)  // overlapping; back to back is two groups
      groups.back().span.end = std::max(groups.back().span.end, sp.end);
    else
      groups.push_back({sp, {}});
  }
  for (const auto& [id, s] : app.stages) {
    std::int64_t start = s.submitted > 0 ? s.submitted : first_launch(s);
    if (start <= 0 || groups.empty()) continue;
    auto it = std::upper_bound(groups.begin(), groups.end(), start,
                               [](std::int64_t t, const Group& g) { return t < g.span.start; });
    if (it != groups.begin()) --it;
    it->stages.push_back(&s);
  }
  return groups;
}

// One group's stages on `slots` cores (0: as many as it has tasks): its makespan.
// as_run: the slots come up when the run's executors did; otherwise all are there from the start.
std::int64_t replay_group(const Model& model, const Group& g, int slots, bool as_run) {
  const auto& st = g.stages;
  if (st.empty()) return g.span.end - g.span.start;
  std::map<int, std::size_t> index;
  for (std::size_t i = 0; i < st.size(); ++i) index[st[i]->id] = i;
  std::vector<std::vector<std::size_t>> children(st.size());
  std::vector<int> pending(st.size(), 0);
  std::vector<std::int64_t> release(st.size(), 0), gap(st.size(), 0);
  std::size_t tasks = 0;
  for (std::size_t i = 0; i < st.size(); ++i) {
    tasks += st[i]->tasks.size();
    for (int p : st[i]->parents)
      if (auto it = index.find(p); it != index.end() && it->second != i) {
        children[it->second].push_back(i);
        ++pending[i];
      }
    std::int64_t start = st[i]->submitted > 0 ? st[i]->submitted : first_launch(*st[i]);
    if (pending[i] == 0) {
      // A stage that reads no stage of this group starts when the driver submitted it.
      release[i] = std::max<std::int64_t>(0, start - g.span.start);
    } else {
      // One that reads others starts when they have ended, after the gap the log shows between
      // their end and its submission (the scheduler's, the driver's): on any cluster size.
      std::int64_t parents_end = 0;
      for (int p : st[i]->parents)
        if (auto it = index.find(p); it != index.end() && it->second != i)
          parents_end = std::max(parents_end, stage_end(*st[it->second]));
      gap[i] = parents_end > 0 ? std::max<std::int64_t>(0, start - parents_end) : 0;
    }
  }
  std::size_t n_slots = slots > 0 ? static_cast<std::size_t>(slots) : std::max<std::size_t>(tasks, 1);
  n_slots = std::min(n_slots, std::max<std::size_t>(tasks, 1));
  std::priority_queue<std::int64_t, std::vector<std::int64_t>, std::greater<>> free_at;
  for (std::size_t i = 0; i < n_slots; ++i)
    free_at.push(as_run && i < model.slot_from.size() ? std::max<std::int64_t>(0, model.slot_from[i] - g.span.start)
                                                      : 0);
  using Ready = std::pair<std::int64_t, std::size_t>;  // release time, stage
  std::priority_queue<Ready, std::vector<Ready>, std::greater<>> ready;
  for (std::size_t i = 0; i < st.size(); ++i)
    if (pending[i] == 0) ready.push({release[i], i});
  std::vector<bool> done(st.size(), false);
  std::int64_t makespan = 0;
  std::size_t finished = 0;
  while (finished < st.size()) {
    std::size_t i = 0;
    if (!ready.empty()) {
      i = ready.top().second;
      ready.pop();
    } else {
      // A dependency the log does not close (a parent that never ended): take the next unfinished stage.
      while (done[i]) ++i;
    }
    if (done[i]) continue;
    done[i] = true;
    ++finished;
    const Stage& s = *st[i];
    Overhead over;
    if (auto it = model.overhead.find(s.id); it != model.overhead.end()) over = it->second;
    std::int64_t end = release[i];
    if (s.tasks.empty()) {
      end += s.duration_ms();
    } else {
      std::int64_t open = release[i] + over.head;
      for (std::uint32_t d : model.durations.at(s.id)) {
        std::int64_t start = std::max(free_at.top(), open);
        free_at.pop();
        std::int64_t finish = start + d;
        free_at.push(finish);
        end = std::max(end, finish);
      }
      end += over.tail;
    }
    makespan = std::max(makespan, end);
    for (std::size_t c : children[i]) {
      release[c] = std::max(release[c], end);
      if (--pending[c] == 0) {
        release[c] += gap[c];
        ready.push({release[c], c});
      }
    }
  }
  return makespan;
}

Model model_of(const Application& app) {
  Model m;
  m.start = app.started > 0 ? app.started : app.first_event_time;
  m.total = app.duration_ms();
  m.groups = groups_of(app);
  Timeline timeline(app);
  // The slots the run had: its cores, or the tasks it ran at once when more (a log that misses an
  // executor's arrival, an engine that runs more tasks than cores).
  // With executor events, the cores they declared (a task's Finish Time is logged after the next
  // task on its core launched, so counting overlaps would over-count); without (local mode, a cut
  // log), local[N] or the most tasks that ran at once.
  bool declared = std::any_of(app.executors.begin(), app.executors.end(),
                              [](const ExecutorChange& c) { return c.added && c.cores > 0 && c.id != "driver"; });
  m.slots_as_run = declared ? std::max(1, app.max_cores()) : std::max({1, app.max_cores(), timeline.most()});
  timeline.set_slots(m.slots_as_run);
  for (const auto& c : app.executors)
    if (c.id != "driver" && c.added && c.cores > 0) {
      // A time outside the run (logs written by hand, clocks apart) says nothing: from the start.
      std::int64_t at = c.time >= m.start && c.time <= m.start + m.total ? c.time : m.start;
      m.slot_from.insert(m.slot_from.end(), static_cast<std::size_t>(c.cores), at);
    }
  std::sort(m.slot_from.begin(), m.slot_from.end());
  // Slots the executor events do not account for (local mode, tasks beyond the cores) were there from the start.
  if (m.slot_from.size() > static_cast<std::size_t>(m.slots_as_run))
    m.slot_from.resize(static_cast<std::size_t>(m.slots_as_run));
  m.slot_from.insert(m.slot_from.begin(), static_cast<std::size_t>(m.slots_as_run) - m.slot_from.size(), 0);
  for (const auto& [id, s] : app.stages) {
    Overhead o;
    std::int64_t first = first_launch(s), last = last_finish(s);
    if (s.submitted > 0 && first > s.submitted)
      o.head = std::max<std::int64_t>(0, first - timeline.free_from(s.submitted));
    if (last > 0 && s.completed > last) o.tail = s.completed - last;
    if (o.head > 0 || o.tail > 0) m.overhead[id] = o;
    m.durations[id] = launch_order(s);
  }
  return m;
}

Replay replay(const Model& m, int slots, bool as_run = false) {
  Replay r;
  std::int64_t busy = 0;
  for (const auto& g : m.groups) {
    std::int64_t a = std::max(g.span.start, m.start), b = std::min(g.span.end, m.start + m.total);
    if (m.total > 0 && b > a) busy += b - a;
    r.jobs_ms += replay_group(m, g, slots, as_run);
  }
  r.driver_ms = std::max<std::int64_t>(0, m.total - busy);
  return r;
}

}  // namespace

std::int64_t simulate(const Application& app, int slots) {
  Replay r = replay(model_of(app), slots);
  return r.driver_ms + r.jobs_ms;
}

WhatIf what_if(const Application& app, const std::vector<int>& executor_counts) {
  WhatIf w;
  std::size_t tasks = 0;
  for (const auto& [id, s] : app.stages) tasks += s.tasks.size();
  w.measured_ms = app.duration_ms();
  if (tasks == 0 || w.measured_ms <= 0) return w;
  // The executors at the widest point, their usual cores, and how many shared a host.
  std::map<int, int> cores_seen;
  std::map<std::string, int> per_host;
  std::set<std::string> alive;  // a removal of an executor the log never added changes nothing
  int widest = 0;
  for (const auto& c : app.executors) {
    if (c.id == "driver") continue;
    if (!c.added) {
      alive.erase(c.id);
      continue;
    }
    alive.insert(c.id);
    widest = std::max(widest, static_cast<int>(alive.size()));
    if (c.cores > 0) {
      ++cores_seen[c.cores];
      ++per_host[c.host];
    }
  }
  Model model = model_of(app);
  int slots = model.slots_as_run;
  if (widest == 0 || cores_seen.empty()) {  // local mode (the driver is the one executor), or no cores declared
    w.executors = std::max(1, widest);
    w.cores_per_executor = std::max(1, slots / w.executors);
  } else {
    w.executors = widest;
    w.cores_per_executor = std::max_element(cores_seen.begin(), cores_seen.end(), [](auto& a, auto& b) {
                             return a.second < b.second;
                           })->first;
    int added = 0;
    for (const auto& [h, n] : per_host) added += n;
    w.executors_per_node =
        std::max(1, static_cast<int>(std::lround(static_cast<double>(added) / static_cast<double>(per_host.size()))));
  }
  // Task slots of one executor, as the run had them.
  w.slots_per_executor = std::max(w.cores_per_executor, (slots + w.executors - 1) / w.executors);
  Replay actual = replay(model, slots, true);
  w.driver_ms = actual.driver_ms;
  w.simulated_ms = actual.driver_ms + actual.jobs_ms;
  Replay unlimited = replay(model, 0);
  w.critical_path_ms = unlimited.driver_ms + unlimited.jobs_ms;
  std::vector<int> counts = executor_counts;
  if (std::find(counts.begin(), counts.end(), w.executors) == counts.end()) counts.push_back(w.executors);
  std::sort(counts.begin(), counts.end());
  counts.erase(std::unique(counts.begin(), counts.end()), counts.end());
  for (int n : counts) {
    if (n <= 0) continue;
    WhatIfRow row;
    row.executors = n;
    row.as_run = n == w.executors;
    row.slots = row.as_run ? slots
                           : static_cast<int>(std::min<std::int64_t>(
                                 static_cast<std::int64_t>(n) * w.slots_per_executor, 1'000'000'000));
    Replay sized = replay(model, row.slots);
    row.wall_ms = row.as_run ? w.simulated_ms : sized.driver_ms + sized.jobs_ms;
    // Executor hosts and the driver's; in local mode the driver is the one node.
    int nodes = widest == 0 ? 1 : (n + w.executors_per_node - 1) / w.executors_per_node + 1;
    row.node_hours = static_cast<double>(row.wall_ms) / 3.6e6 * nodes;
    w.rows.push_back(row);
  }
  w.usable = true;
  return w;
}

}  // namespace planlint::eventlog
