// The event-log reader: decompressed chunks, split into lines in place, each parsed with simdjson's
// On-Demand API and folded into the IR. Unknown events are skipped; malformed lines are counted.
#include "eventlog/reader.hpp"

#include <simdjson.h>

#include <algorithm>
#include <charconv>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <tuple>

#include "eventlog/codec.hpp"

namespace planlint::eventlog {

namespace {
namespace od = simdjson::ondemand;
namespace fs = std::filesystem;

constexpr std::size_t kMaxLine = 512ULL << 20;
constexpr std::size_t kProblemsKept = 20;

std::int64_t num(od::value value) {
  std::int64_t i = 0;
  if (value.get_int64().get(i) == simdjson::SUCCESS) return i;
  double d = 0;
  if (value.get_double().get(d) == simdjson::SUCCESS) return static_cast<std::int64_t>(d);
  // SQL metrics' task updates are written as strings: "Update":"2056643496".
  std::string_view s;
  if (value.get_string().get(s) == simdjson::SUCCESS) std::from_chars(s.data(), s.data() + s.size(), i);
  return i;
}
std::int64_t num(simdjson::simdjson_result<od::value> r) {
  od::value value;
  if (r.get(value) != simdjson::SUCCESS) return 0;
  return num(value);
}
template <typename T>
std::uint64_t unum(T&& v) {
  std::int64_t n = num(std::forward<T>(v));
  return n > 0 ? static_cast<std::uint64_t>(n) : 0;
}
template <typename T>
std::string str(T&& v) {
  std::string_view s;
  if (std::forward<T>(v).get_string().get(s) != simdjson::SUCCESS) return {};
  return std::string(s);
}
// A string field as a view into the parser's buffer (valid while the document is), "" if not a string.
template <typename T>
std::string_view view(T&& v) {
  std::string_view s;
  if (std::forward<T>(v).get_string().get(s) != simdjson::SUCCESS) return {};
  return s;
}
template <typename T>
bool boolean(T&& v) {
  bool b = false;
  if (std::forward<T>(v).get_bool().get(b) != simdjson::SUCCESS) return false;
  return b;
}

// The line of a message that says what happened, at most 2000 bytes: its first line, or, when it
// quotes a Python traceback, the text before the traceback and the exception that ends it
// ("...: PythonException: ZeroDivisionError: division by zero"), not "Traceback (most recent call last):".
std::string one_line(std::string_view v) {
  std::string_view first = v.substr(0, v.find('\n'));
  auto tb = v.find("Traceback (most recent call last)");
  if (tb == std::string_view::npos) return std::string(first.substr(0, 2000));
  std::size_t line_start = v.rfind('\n', tb);
  line_start = line_start == std::string_view::npos ? 0 : line_start + 1;
  std::string prefix(v.substr(line_start, tb - line_start));
  // The frames are indented ("  File ...", "    code"); the exception is the first line that is not.
  std::string_view rest = v.substr(tb);
  rest.remove_prefix(
      std::min(rest.size(), rest.find('\n') == std::string_view::npos ? rest.size() : rest.find('\n') + 1));
  while (!rest.empty()) {
    std::string_view l = rest.substr(0, rest.find('\n'));
    rest.remove_prefix(std::min(rest.size(), l.size() + 1));
    if (!l.empty() && l.back() == '\r') l.remove_suffix(1);
    if (!l.empty() && l.front() != ' ' && l.front() != '\t') return (prefix + std::string(l)).substr(0, 2000);
  }
  return std::string(first.substr(0, 2000));
}

std::string_view short_event(std::string_view e) {
  auto dot = e.rfind('.');
  return dot == std::string_view::npos ? e : e.substr(dot + 1);
}

// Calls f(key, value) for each field of an object, from its first field (a document's root object
// may have been looked into already).
template <typename F>
simdjson::error_code each_field(od::object& o, F&& f) {
  bool ignored = false;
  if (auto e = o.reset().get(ignored); e != simdjson::SUCCESS) return e;
  for (auto field : o) {
    std::string_view key;
    if (field.unescaped_key().get(key) != simdjson::SUCCESS) return simdjson::TAPE_ERROR;
    f(key, field.value());
  }
  return simdjson::SUCCESS;
}

class Builder {
 public:
  explicit Builder(Application& app) : app_(app) {}

  void line(const char* data, std::size_t len, std::size_t capacity) {
    missing_ = {};
    ++app_.lines;
    ++line_no_;
    std::string_view text(data, len);
    if (!text.empty() && text.back() == '\r') text.remove_suffix(1);
    if (text.find_first_not_of(" \t") == std::string_view::npos) return;
    // On-Demand reads only the fields asked for and would take a line broken elsewhere for a good
    // one: each line is validated whole first (about 850 MB/s here), so a broken line is reported.
    {
      simdjson::dom::element ignored;
      if (auto e = dom_.parse(text.data(), text.size(), false).get(ignored); e != simdjson::SUCCESS) {
        malformed(simdjson::error_message(e));
        return;
      }
    }
    od::document doc;
    auto error = parser_.iterate(simdjson::padded_string_view(text.data(), text.size(), capacity)).get(doc);
    if (error == simdjson::SUCCESS) error = handle(doc);
    if (error == simdjson::SUCCESS) return;
    // Valid JSON: what is wrong is a field the event needs (missing, or of another type).
    if (!missing_.empty()) {
      ++app_.malformed_lines;
      if (app_.malformed_lines <= kProblemsKept)
        problem(line_no_,
                std::string(event_) + " event " +
                    (error == simdjson::INCORRECT_TYPE ? "has a \"" + std::string(missing_) + "\" of the wrong type"
                                                       : "lacks the \"" + std::string(missing_) + "\" field") +
                    "; skipped");
      return;
    }
    malformed(simdjson::error_message(error));
  }

  void problem(std::uint32_t line, std::string message) {
    if (app_.problems.size() < kProblemsKept * 2) app_.problems.push_back({line, std::move(message)});
  }
  [[nodiscard]] std::uint32_t line_no() const { return line_no_; }
  // Whether the last line read was valid JSON that lacked a field its event needs.
  [[nodiscard]] bool lacked_field() const { return !missing_.empty(); }

 private:
  // The field whose absence (or type) made the current line unreadable, and the line's event.
  std::string_view missing_, event_ = "a JSON";
  simdjson::error_code missing(std::string_view field, simdjson::error_code e = simdjson::NO_SUCH_FIELD) {
    missing_ = field;
    return e;
  }

  void malformed(std::string_view why) {
    ++app_.malformed_lines;
    if (app_.malformed_lines <= kProblemsKept)
      problem(line_no_, "line is not a JSON event (" + std::string(why) + "); skipped");
  }

  simdjson::error_code handle(od::document& document) {
    od::object doc;
    if (auto e = document.get_object().get(doc); e != simdjson::SUCCESS) return e;
    std::string_view event;
    event_ = "a JSON";
    if (auto e = doc["Event"].get_string().get(event); e != simdjson::SUCCESS) return missing("Event", e);
    app_.looks_like_event_log = true;
    ++app_.events;
    std::string_view name = short_event(event);
    event_ = name;
    if (name == "SparkListenerTaskEnd") return task_end(doc);
    if (name == "SparkListenerStageSubmitted") return stage(doc, false);
    if (name == "SparkListenerStageCompleted") return stage(doc, true);
    if (name == "SparkListenerJobStart") return job_start(doc);
    if (name == "SparkListenerJobEnd") return job_end(doc);
    if (name == "SparkListenerSQLExecutionStart") return sql_start(doc);
    if (name == "SparkListenerSQLAdaptiveExecutionUpdate") return sql_update(doc);
    if (name == "SparkListenerSQLExecutionEnd") return sql_end(doc);
    if (name == "SparkListenerDriverAccumUpdates") return driver_accum_updates(doc);
    if (name == "SparkListenerExecutorAdded") return executor(doc, true);
    if (name == "SparkListenerExecutorRemoved") return executor(doc, false);
    if (name == "SparkListenerEnvironmentUpdate") return environment(doc);
    if (name == "SparkListenerLogStart") {
      app_.spark_version = str(doc["Spark Version"]);
    } else if (name == "SparkListenerApplicationStart") {
      app_.name = str(doc["App Name"]);
      app_.id = str(doc["App ID"]);
      app_.started = num(doc["Timestamp"]);
      app_.user = str(doc["User"]);
      app_.attempt = str(doc["App Attempt ID"]);
    } else if (name == "SparkListenerApplicationEnd") {
      app_.ended = num(doc["Timestamp"]);
      app_.complete = true;
    }
    return simdjson::SUCCESS;
  }

  simdjson::error_code task_end(od::object& doc) {
    int stage_id = -1;
    Task t;
    std::string_view reason_text = "Success";
    std::string why;
    bool failed = false, killed = false;
    std::int64_t finish = 0;
    std::string_view executor, host;
    // One pass over the event's fields in the order Spark writes them: no rewinding (the stage
    // comes first; older logs may order otherwise, so the metrics are added once it is known).
    StageMetrics m;
    std::uint64_t peak = 0;
    auto fields = each_field(doc, [&](std::string_view key, od::value value) {
      if (key == "Stage ID") {
        stage_id = static_cast<int>(num(value));
      } else if (key == "Stage Attempt ID") {
        t.stage_attempt = static_cast<std::uint32_t>(unum(value));
      } else if (key == "Task End Reason") {
        od::object reason;
        if (value.get_object().get(reason) != simdjson::SUCCESS) return;
        why = end_reason(reason, reason_text);
      } else if (key == "Task Info") {
        od::object info;
        if (value.get_object().get(info) != simdjson::SUCCESS) return;
        for (auto field : info) {
          std::string_view k;
          if (field.unescaped_key().get(k) != simdjson::SUCCESS) return;
          if (k == "Launch Time")
            t.launch = num(field.value());
          else if (k == "Finish Time")
            finish = num(field.value());
          else if (k == "Executor ID")
            executor = view(field.value());
          else if (k == "Host")
            host = view(field.value());
          else if (k == "Speculative")
            t.speculative = boolean(field.value());
          else if (k == "Failed")
            failed = failed || boolean(field.value());
          else if (k == "Killed")
            killed = killed || boolean(field.value());
          else if (k == "Accumulables" && !app_.accumulators.empty())
            accumulables(field.value());
        }
        t.executor = executor_index(executor, host);
      } else if (key == "Task Metrics") {
        od::object mo;
        if (value.get_object().get(mo) != simdjson::SUCCESS) return;
        task_metrics(mo, m, peak, t);
      }
    });
    if (fields != simdjson::SUCCESS) return fields;
    if (stage_id < 0) return missing("Stage ID");
    Stage* s = &stage_at(stage_id);
    // As Spark's status listener counts them: a commit denied is a kill (another attempt wrote it).
    failed = failed || reason_text != "Success";
    killed = killed || reason_text == "TaskKilled" || reason_text == "TaskCommitDenied";
    t.status = killed ? TaskStatus::killed : failed ? TaskStatus::failed : TaskStatus::success;
    if (t.status != TaskStatus::success) t.reason = reason_index(why.empty() ? std::string(reason_text) : why);
    // A task without its launch or finish time has no duration (not 49 days from the epoch).
    bool timed = t.launch > 0 && finish > 0;
    t.duration = timed && finish > t.launch
                     ? static_cast<std::uint32_t>(std::min<std::int64_t>(finish - t.launch, UINT32_MAX))
                     : 0;
    StageMetrics& sm = s->m;
    ++sm.tasks;
    if (killed)
      ++sm.killed_tasks;
    else if (failed)
      ++sm.failed_tasks;
    sm.task_ms += t.duration;
    if (failed || killed) sm.failed_task_ms += t.duration;
    if (!failed && !killed && timed) s->durations.push_back(t.duration);
    sm.run_ms += m.run_ms;
    sm.cpu_ns += m.cpu_ns;
    sm.gc_ms += m.gc_ms;
    sm.peak_execution_memory = std::max(sm.peak_execution_memory, peak);
    sm.peak_execution_memory_sum += peak;
    sm.memory_spill += m.memory_spill;
    sm.disk_spill += m.disk_spill;
    sm.shuffle_read_bytes += m.shuffle_read_bytes;
    sm.shuffle_read_records += m.shuffle_read_records;
    sm.shuffle_write_bytes += m.shuffle_write_bytes;
    sm.shuffle_write_records += m.shuffle_write_records;
    sm.input_bytes += m.input_bytes;
    sm.input_records += m.input_records;
    sm.output_bytes += m.output_bytes;
    sm.output_records += m.output_records;
    t.input_bytes = m.input_bytes;
    t.input_records = m.input_records;
    t.shuffle_bytes = m.shuffle_read_bytes;
    t.shuffle_records = m.shuffle_read_records;
    s->tasks.push_back(t);
    return simdjson::SUCCESS;
  }

  // What a task's end reason says, as one line a report can print whole: the exception and its
  // message (a Python worker's own exception, the traceback's last line), the fetch failure, the
  // executor loss, the kill reason. `kind` is set to the reason's name.
  static std::string end_reason(od::object& reason, std::string_view& kind) {
    std::string cls, description, message, loss, kill, exec;
    bool by_app = true;
    for (auto f : reason) {
      std::string_view k;
      if (f.unescaped_key().get(k) != simdjson::SUCCESS) break;
      if (k == "Reason")
        kind = view(f.value());
      else if (k == "Class Name")
        cls = str(f.value());
      else if (k == "Description")
        description = str(f.value());
      else if (k == "Message")
        message = str(f.value());
      else if (k == "Loss Reason")
        loss = str(f.value());
      else if (k == "Kill Reason")
        kill = str(f.value());
      else if (k == "Executor ID")
        exec = str(f.value());
      else if (k == "Exit Caused By App")
        by_app = boolean(f.value());
    }
    std::string text(kind);
    if (kind == "ExceptionFailure") {
      text = cls;
      if (!description.empty()) text += ": " + one_line(description);
    } else if (kind == "FetchFailed") {
      text = "FetchFailed" + (message.empty() ? std::string() : ": " + one_line(message));
    } else if (kind == "ExecutorLostFailure") {
      text = "ExecutorLostFailure: executor " + exec + " lost" + (by_app ? "" : " (not caused by the application)") +
             (loss.empty() ? std::string() : ": " + one_line(loss));
    } else if (kind == "TaskKilled") {
      text = "TaskKilled" + (kill.empty() ? std::string() : ": " + one_line(kill));
    }
    return text;
  }

  std::uint32_t executor_index(std::string_view id, std::string_view host) {
    auto it = executor_at_.find(id);
    if (it != executor_at_.end()) return it->second;
    auto i = static_cast<std::uint32_t>(app_.executor_ids.size());
    app_.executor_ids.emplace_back(id);
    app_.executor_hosts.emplace_back(host);
    executor_at_.emplace(app_.executor_ids.back(), i);
    return i;
  }

  std::uint32_t reason_index(const std::string& why) {
    if (app_.reasons.empty()) app_.reasons.emplace_back();
    auto it = reason_at_.find(why);
    if (it != reason_at_.end()) return it->second;
    auto i = static_cast<std::uint32_t>(app_.reasons.size());
    app_.reasons.push_back(why);
    reason_at_.emplace(why, i);
    return i;
  }

  // One task's metrics into m (fresh for the task), its peak execution memory and its record.
  static void task_metrics(od::object& mo, StageMetrics& m, std::uint64_t& peak, Task& t) {
    for (auto field : mo) {
      std::string_view key;
      if (field.unescaped_key().get(key) != simdjson::SUCCESS) return;
      od::value v = field.value();
      if (key == "Executor Run Time") {
        m.run_ms += unum(v);
        t.run_ms = static_cast<std::uint32_t>(std::min<std::uint64_t>(m.run_ms, UINT32_MAX));
      } else if (key == "Executor CPU Time") {
        m.cpu_ns += unum(v);
        t.cpu_ms = static_cast<std::uint32_t>(std::min<std::uint64_t>(m.cpu_ns / 1000000, UINT32_MAX));
      } else if (key == "JVM GC Time") {
        m.gc_ms += unum(v);
        t.gc_ms = static_cast<std::uint32_t>(std::min<std::uint64_t>(m.gc_ms, UINT32_MAX));
      } else if (key == "Peak Execution Memory") {
        peak = unum(v);
      } else if (key == "Memory Bytes Spilled") {
        m.memory_spill += unum(v);
      } else if (key == "Disk Bytes Spilled") {
        m.disk_spill += unum(v);
      } else if (key == "Shuffle Read Metrics") {
        shuffle_read(v, m);
      } else if (key == "Shuffle Write Metrics") {
        od::object w;
        if (v.get_object().get(w) != simdjson::SUCCESS) continue;
        for (auto f : w) {
          std::string_view k;
          if (f.unescaped_key().get(k) != simdjson::SUCCESS) break;
          if (k == "Shuffle Bytes Written")
            m.shuffle_write_bytes += unum(f.value());
          else if (k == "Shuffle Records Written")
            m.shuffle_write_records += unum(f.value());
        }
      } else if (key == "Input Metrics" || key == "Output Metrics") {
        bool input = key == "Input Metrics";
        od::object io;
        if (v.get_object().get(io) != simdjson::SUCCESS) continue;
        for (auto f : io) {
          std::string_view k;
          if (f.unescaped_key().get(k) != simdjson::SUCCESS) break;
          if (k == "Bytes Read" || k == "Bytes Written")
            (input ? m.input_bytes : m.output_bytes) += unum(f.value());
          else if (k == "Records Read" || k == "Records Written")
            (input ? m.input_records : m.output_records) += unum(f.value());
        }
      }
    }
  }

  static void shuffle_read(od::value& v, StageMetrics& m) {
    od::object r;
    if (v.get_object().get(r) != simdjson::SUCCESS) return;
    for (auto f : r) {
      std::string_view k;
      if (f.unescaped_key().get(k) != simdjson::SUCCESS) return;
      if (k == "Remote Bytes Read" || k == "Local Bytes Read")
        m.shuffle_read_bytes += unum(f.value());
      else if (k == "Total Records Read")
        m.shuffle_read_records += unum(f.value());
    }
  }

  // RDD Info[].Scope is a JSON string {"id":"3","name":"Exchange"}: the operator that made the RDD.
  static void rdd_scopes(od::value v, std::vector<std::string>& out) {
    od::array rdds;
    if (v.get_array().get(rdds) != simdjson::SUCCESS) return;
    for (auto rdd : rdds) {
      od::object o;
      if (rdd.get_object().get(o) != simdjson::SUCCESS) return;
      std::string scope = str(o["Scope"]);
      auto at = scope.find("\"name\":\"");
      if (at == std::string::npos) continue;
      at += 8;
      std::string name = scope.substr(at, scope.find('"', at) - at);
      if (name.empty() || std::find(out.begin(), out.end(), name) != out.end()) continue;
      out.push_back(std::move(name));
    }
  }

  Stage& stage_at(int id) {
    auto [it, added] = app_.stages.try_emplace(id);
    if (added) {
      it->second.id = id;
      it->second.line = line_no_;
    }
    return it->second;
  }

  simdjson::error_code stage(od::object& doc, bool completed) {
    od::object info;
    if (auto e = doc["Stage Info"].get_object().get(info); e != simdjson::SUCCESS) return missing("Stage Info", e);
    Stage* s = nullptr;
    std::string name, details, failure;
    std::int64_t submitted = 0, done = 0;
    std::uint64_t tasks = 0;
    std::vector<std::string> operators;
    std::vector<int> parents;
    for (auto field : info) {
      std::string_view key;
      if (field.unescaped_key().get(key) != simdjson::SUCCESS) return simdjson::TAPE_ERROR;
      if (key == "Stage ID")
        s = &stage_at(static_cast<int>(num(field.value())));
      else if (key == "Stage Name")
        name = str(field.value());
      else if (key == "Number of Tasks")
        tasks = unum(field.value());
      else if (key == "Details")
        details = str(field.value());
      else if (key == "Submission Time")
        submitted = num(field.value());
      else if (key == "Completion Time")
        done = num(field.value());
      else if (key == "Failure Reason")
        failure = str(field.value());
      else if (key == "RDD Info" && !completed)
        rdd_scopes(field.value(), operators);
      else if (key == "Parent IDs") {
        od::array ids;
        if (field.value().get_array().get(ids) != simdjson::SUCCESS) continue;
        for (auto id : ids) parents.push_back(static_cast<int>(num(id)));
      }
    }
    if (s == nullptr) return missing("Stage ID");
    if (!completed) ++s->attempts;
    if (s->attempts == 0) s->attempts = 1;  // a completion without its submission (a cut log)
    if (!name.empty()) s->name = std::move(name);
    if (!details.empty()) s->details = std::move(details);
    if (tasks > 0) s->num_tasks = tasks;
    if (s->operators.empty()) s->operators = std::move(operators);
    if (s->parents.empty()) s->parents = std::move(parents);
    if (submitted > 0 && (s->submitted == 0 || submitted < s->submitted)) s->submitted = submitted;
    if (done > s->completed) s->completed = done;
    if (completed && !failure.empty()) {
      ++s->failed_attempts;
      if (s->failure_reason.empty()) s->failure_reason = one_line(failure);
    }
    return simdjson::SUCCESS;
  }

  simdjson::error_code job_start(od::object& doc) {
    Job job;
    job.line = line_no_;
    auto fields = each_field(doc, [&](std::string_view key, od::value value) {
      if (key == "Job ID")
        job.id = static_cast<int>(num(value));
      else if (key == "Submission Time")
        job.submitted = num(value);
      else if (key == "Stage IDs") {
        od::array ids;
        if (value.get_array().get(ids) != simdjson::SUCCESS) return;
        for (auto id : ids) job.stages.push_back(static_cast<int>(num(id)));
      } else if (key == "Properties") {
        od::object props;
        if (value.get_object().get(props) != simdjson::SUCCESS) return;
        for (auto p : props) {
          std::string_view k;
          if (p.unescaped_key().get(k) != simdjson::SUCCESS) break;
          if (k != "spark.sql.execution.id") continue;
          std::string v = str(p.value());
          std::int64_t id = -1;
          std::from_chars(v.data(), v.data() + v.size(), id);
          job.sql_execution = id;
        }
      }
    });
    if (fields != simdjson::SUCCESS) return fields;
    for (int sid : job.stages) {
      Stage& s = stage_at(sid);
      s.job = job.id;
      s.sql_execution = job.sql_execution;
    }
    int id = job.id;
    app_.jobs[id] = std::move(job);
    return simdjson::SUCCESS;
  }

  simdjson::error_code job_end(od::object& doc) {
    int id = static_cast<int>(num(doc["Job ID"]));
    Job& job = app_.jobs[id];
    job.id = id;
    job.completed = num(doc["Completion Time"]);
    od::object result;
    if (doc["Job Result"].get_object().get(result) == simdjson::SUCCESS)
      job.succeeded = str(result["Result"]) == "JobSucceeded";
    return simdjson::SUCCESS;
  }

  SqlExecution& sql_at(std::int64_t id) {
    SqlExecution& x = app_.sql[id];
    x.id = id;
    return x;
  }

  simdjson::error_code sql_start(od::object& doc) {
    std::int64_t id = -1;
    std::string description, details, plan;
    std::vector<PlanMetricNode> nodes;
    std::int64_t time = 0;
    auto fields = each_field(doc, [&](std::string_view key, od::value value) {
      if (key == "executionId")
        id = num(value);
      else if (key == "description")
        description = str(value);
      else if (key == "details")
        details = str(value);
      else if (key == "physicalPlanDescription")
        plan = str(value);
      else if (key == "time")
        time = num(value);
      else if (key == "sparkPlanInfo")
        plan_info(value, nodes);
    });
    if (fields != simdjson::SUCCESS) return fields;
    if (id < 0) return missing("executionId");
    SqlExecution& x = sql_at(id);
    x.description = std::move(description);
    x.details = std::move(details);
    x.started = time;
    if (!x.adaptive_update) {
      x.plan = std::move(plan);
      x.line = line_no_;
      x.nodes = std::move(nodes);
    }
    return simdjson::SUCCESS;
  }

  simdjson::error_code sql_update(od::object& doc) {
    std::int64_t id = -1;
    std::string plan;
    std::vector<PlanMetricNode> nodes;
    auto fields = each_field(doc, [&](std::string_view key, od::value value) {
      if (key == "executionId")
        id = num(value);
      else if (key == "physicalPlanDescription")
        plan = str(value);
      else if (key == "sparkPlanInfo")
        plan_info(value, nodes);
    });
    if (fields != simdjson::SUCCESS) return fields;
    if (id < 0 || plan.empty()) return simdjson::SUCCESS;
    SqlExecution& x = sql_at(id);
    x.plan = std::move(plan);
    if (!nodes.empty()) x.nodes = std::move(nodes);
    x.adaptive_update = true;
    x.line = line_no_;
    return simdjson::SUCCESS;
  }

  // sparkPlanInfo: {nodeName, simpleString, children: [...], metrics: [{name, accumulatorId}]}, flattened in
  // preorder; the "data size" accumulators become the ones task and driver updates are summed for.
  int plan_info(od::value v, std::vector<PlanMetricNode>& nodes, int depth = 0) {
    od::object o;
    if (depth > 200 || v.get_object().get(o) != simdjson::SUCCESS) return -1;
    int me = static_cast<int>(nodes.size());
    nodes.emplace_back();
    std::vector<int> children;
    for (auto field : o) {
      std::string_view key;
      if (field.unescaped_key().get(key) != simdjson::SUCCESS) break;
      if (key == "nodeName")
        nodes[me].name = str(field.value());
      else if (key == "simpleString")
        nodes[me].simple = str(field.value()).substr(0, 300);
      else if (key == "children") {
        od::array kids;
        if (field.value().get_array().get(kids) != simdjson::SUCCESS) continue;
        for (auto kid : kids) {
          od::value kv;
          if (kid.get(kv) != simdjson::SUCCESS) break;
          int c = plan_info(kv, nodes, depth + 1);
          if (c >= 0) children.push_back(c);
        }
      } else if (key == "metrics") {
        od::array metrics;
        if (field.value().get_array().get(metrics) != simdjson::SUCCESS) continue;
        for (auto m : metrics) {
          od::object mo;
          if (m.get_object().get(mo) != simdjson::SUCCESS) break;
          std::string name = str(mo["name"]);
          // "data size" since Spark 3.0; "data size total (min, med, max)" in 2.x.
          if (name != "data size" && name.rfind("data size total", 0) != 0) continue;
          std::int64_t id = num(mo["accumulatorId"]);
          nodes[me].data_size_accumulator = id;
          app_.accumulators.try_emplace(id, -1);  // -1: no update seen
        }
      }
    }
    nodes[me].children = std::move(children);
    return me;
  }

  // Task-side updates of the SQL metrics planlint follows ("Task Info" / "Accumulables").
  void accumulables(od::value v) {
    od::array arr;
    if (v.get_array().get(arr) != simdjson::SUCCESS) return;
    for (auto a : arr) {
      od::object o;
      if (a.get_object().get(o) != simdjson::SUCCESS) return;
      auto it = app_.accumulators.find(num(o["ID"]));
      if (it != app_.accumulators.end()) it->second = std::max<std::int64_t>(it->second, 0) + num(o["Update"]);
    }
  }

  simdjson::error_code driver_accum_updates(od::object& doc) {
    od::array updates;
    if (doc["accumUpdates"].get_array().get(updates) != simdjson::SUCCESS) return simdjson::SUCCESS;
    for (auto u : updates) {
      od::array pair;
      if (u.get_array().get(pair) != simdjson::SUCCESS) break;
      std::int64_t vals[2] = {0, 0};
      int i = 0;
      for (auto x : pair) {
        if (i < 2) vals[i] = num(x);
        ++i;
      }
      auto it = app_.accumulators.find(vals[0]);
      if (it != app_.accumulators.end()) it->second = std::max<std::int64_t>(it->second, 0) + vals[1];
    }
    return simdjson::SUCCESS;
  }

  simdjson::error_code sql_end(od::object& doc) {
    std::int64_t id = num(doc["executionId"]);
    sql_at(id).ended = num(doc["time"]);
    return simdjson::SUCCESS;
  }

  simdjson::error_code executor(od::object& doc, bool added) {
    ExecutorChange c;
    auto fields = each_field(doc, [&](std::string_view key, od::value value) {
      if (key == "Timestamp")
        c.time = num(value);
      else if (key == "Executor ID")
        c.id = str(value);
      else if (key == "Executor Info" && added) {
        od::object info;
        if (value.get_object().get(info) == simdjson::SUCCESS) {
          c.host = str(info["Host"]);
          c.cores = static_cast<int>(num(info["Total Cores"]));
        }
      }
    });
    if (fields != simdjson::SUCCESS) return fields;
    c.added = added;
    if (added) {
      cores_[c.id] = c.cores;
    } else {
      auto it = cores_.find(c.id);
      c.cores = it == cores_.end() ? 0 : -it->second;
      if (it != cores_.end()) cores_.erase(it);
    }
    app_.executors.push_back(std::move(c));
    return simdjson::SUCCESS;
  }

  simdjson::error_code environment(od::object& doc) {
    od::value props;
    if (doc["Spark Properties"].get(props) != simdjson::SUCCESS) return simdjson::SUCCESS;
    od::object obj;
    if (props.get_object().get(obj) == simdjson::SUCCESS) {
      for (auto p : obj) {
        std::string_view k;
        if (p.unescaped_key().get(k) != simdjson::SUCCESS) return simdjson::TAPE_ERROR;
        app_.config[std::string(k)] = str(p.value());
      }
      return simdjson::SUCCESS;
    }
    return simdjson::SUCCESS;
  }

  Application& app_;
  od::parser parser_;
  simdjson::dom::parser dom_;
  std::uint32_t line_no_ = 0;
  std::map<std::string, std::uint32_t, std::less<>> executor_at_, reason_at_;
  std::map<std::string, int> cores_;
};

void read_one(const std::string& path, Builder& b, Application& app, std::string& io_error) {
  std::string open_error;
  Codec codec = codec_for_path(path);
  // A file whose content is another codec's than its name says (gzip named .lz4, plain JSON named
  // .zstd) is read by its content, when its first bytes say which; the report says so.
  // (Regular files only: the head of a pipe would be gone for the read that follows.)
  std::error_code regular_ec;
  std::string head;
  if (fs::is_regular_file(path, regular_ec)) {
    std::ifstream in(path, std::ios::binary);
    char h[16];
    in.read(h, sizeof h);
    head.assign(h, static_cast<std::size_t>(in.gcount()));
  }
  if (!head.empty()) {
    if (auto by_content = codec_for_content(head); by_content && *by_content != codec) {
      b.problem(0, path + ": named as " +
                       (codec == Codec::none ? std::string("plain text") : std::string(to_string(codec))) +
                       " but its content is " +
                       (*by_content == Codec::none ? std::string("plain JSON") : std::string(to_string(*by_content))) +
                       ": read as such");
      codec = *by_content;
    }
  }
  app.codec = std::string(to_string(codec));
  auto stream = open_stream(path, codec, open_error);
  if (!stream) {
    io_error = open_error;
    return;
  }
  std::string buf;
  std::size_t start = 0;
  // Where the search for the next newline goes on: the bytes before it (from `start`) hold none. A
  // line longer than a chunk is searched once, not again with every chunk (that was quadratic: a
  // 256 MB one-line log took 35 s).
  std::size_t searched = 0;
  bool skipping = false;
  auto scan = [&](bool at_end) {
    for (;;) {
      const char* base = buf.data();
      const std::size_t from = std::max(start, searched);
      const void* nl =
          std::memchr(base + from, '\n', buf.size() - from);  // NOLINT(bugprone-not-null-terminated-result)
      if (nl == nullptr) {
        searched = buf.size();
        break;
      }
      std::size_t end = static_cast<const char*>(nl) - base;
      if (skipping) {
        skipping = false;
      } else {
        // simdjson reads up to SIMDJSON_PADDING bytes past the line: the next lines or spare capacity.
        if (buf.capacity() < end + simdjson::SIMDJSON_PADDING) {
          buf.reserve(end + simdjson::SIMDJSON_PADDING + 1);
          base = buf.data();
        }
        b.line(base + start, end - start, buf.capacity() - start);
      }
      start = end + 1;
    }
    if (at_end && start < buf.size() && !skipping) {
      if (buf.capacity() < buf.size() + simdjson::SIMDJSON_PADDING)
        buf.reserve(buf.size() + simdjson::SIMDJSON_PADDING);
      std::size_t before = app.malformed_lines;
      b.line(buf.data() + start, buf.size() - start, buf.capacity() - start);
      // Cut short, unless it is valid JSON that lacks a field (its problem says which).
      if (app.malformed_lines > before && !app.problems.empty() && app.problems.back().line == b.line_no() &&
          !b.lacked_field())
        app.problems.back().message = "last line is cut short (the log may still be in progress); skipped";
    }
  };
  std::size_t before = 0;
  while (stream->read(buf)) {
    app.bytes += buf.size() - before;
    scan(false);
    if (start > 0) {
      buf.erase(0, start);
      searched -= std::min(searched, start);
      start = 0;
    }
    if (buf.size() > kMaxLine) {
      b.problem(b.line_no() + 1, "line is longer than 512 MiB; skipped");
      buf.clear();
      searched = 0;
      skipping = true;
    }
    before = buf.size();
  }
  scan(true);
  if (!stream->error().empty()) b.problem(0, path + ": " + stream->error());
}

}  // namespace

namespace {

// One events_<n>_<app>[.codec][.compact] file of a rolling-log directory.
struct Part {
  long index = 0;
  bool compact = false;
  std::string name, path;
};

std::vector<Part> rolling_parts(const std::string& dir) {
  std::error_code ec;
  std::vector<Part> parts;
  if (!fs::is_directory(dir, ec)) return parts;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    std::string name = entry.path().filename().string();
    if (name.rfind("events_", 0) != 0) continue;
    long n = 0;
    auto [p, e] = std::from_chars(name.data() + 7, name.data() + name.size(), n);
    if (e != std::errc() || p == name.data() + 7) continue;
    bool compact = name.size() > 8 && name.compare(name.size() - 8, 8, ".compact") == 0;
    parts.push_back({n, compact, name, entry.path().string()});
  }
  // As Spark's reader orders them: by index, a compacted file after the plain one of its index.
  std::sort(parts.begin(), parts.end(), [](const Part& a, const Part& b) {
    return std::tie(a.index, a.compact, a.name) < std::tie(b.index, b.compact, b.name);
  });
  return parts;
}

// Whether `p` is named exactly as Spark writes part `index`: events_<index>_<app>[.codec][.compact],
// the index without leading zeros and nothing after the codec (a ".copy" is somebody's copy;
// application ids hold no dots).
bool canonical_name(const Part& p) {
  std::string prefix = "events_" + std::to_string(p.index) + "_";
  if (p.name.rfind(prefix, 0) != 0) return false;
  std::string rest = p.name.substr(prefix.size());
  if (p.compact) rest.resize(rest.size() - 8);
  auto dot = rest.rfind('.');
  if (dot == std::string::npos) return true;
  std::string_view ext = std::string_view(rest).substr(dot + 1);
  return ext == "lz4" || ext == "lzf" || ext == "snappy" || ext == "zstd" || ext == "gz" || ext == "inprogress";
}

}  // namespace

std::vector<std::string> rolling_log_files(const std::string& dir) {
  std::vector<std::string> out;
  for (auto& p : rolling_parts(dir)) out.push_back(std::move(p.path));
  return out;
}

RollingSelection select_rolling_parts(const std::string& dir) {
  RollingSelection sel;
  std::vector<Part> parts = rolling_parts(dir);
  if (parts.empty()) {
    sel.error = "not a rolling event-log directory (no events_<n>_* files)";
    return sel;
  }
  // What a compacted file holds replaces every file before it: read from the last one on.
  std::size_t first = 0;
  for (std::size_t i = 0; i < parts.size(); ++i)
    if (parts[i].compact) first = i;
  if (first > 0)
    sel.notes.push_back("read from the compacted part " + parts[first].name + "; the " + std::to_string(first) +
                        " file" + (first == 1 ? "" : "s") + " before it (which it replaces) skipped");
  // Each index once: a second file of one index (events_02_ beside events_2_, a .copy) would count
  // its tasks twice. The one named as Spark names it is read.
  std::vector<Part> chosen;
  for (std::size_t i = first; i < parts.size();) {
    std::size_t end = i;
    while (end < parts.size() && parts[end].index == parts[i].index) ++end;
    std::size_t pick = i;  // the compacted one, else the one named as Spark names it, else the first
    for (std::size_t k = i; k < end; ++k)
      if (parts[k].compact || (canonical_name(parts[k]) && !canonical_name(parts[pick]) && !parts[pick].compact))
        pick = k;
    for (std::size_t k = i; k < end; ++k)
      if (k != pick)
        sel.notes.push_back("part " + std::to_string(parts[i].index) + " is present twice: read " + parts[pick].name +
                            ", skipped " + parts[k].name);
    chosen.push_back(parts[pick]);
    i = end;
  }
  // No gap: a missing part would read as a time when nothing ran. Spark's reader refuses it too.
  std::vector<long> missing;
  for (std::size_t i = 1; i < chosen.size(); ++i)
    for (long k = chosen[i - 1].index + 1; k < chosen[i].index && missing.size() < 20; ++k) missing.push_back(k);
  if (!missing.empty()) {
    std::string list;
    for (long k : missing) list += (list.empty() ? "" : ", ") + std::to_string(k);
    sel.error = "part" + std::string(missing.size() == 1 ? " " : "s ") + list + " of the rolling log " +
                (missing.size() == 1 ? "is" : "are") + " missing (found parts " + std::to_string(chosen.front().index) +
                " to " + std::to_string(chosen.back().index) + " with a gap): not read";
    return sel;
  }
  for (auto& p : chosen) sel.files.push_back(std::move(p.path));
  return sel;
}

Application read_event_log(const std::string& path, std::string& io_error) {
  io_error.clear();
  Application app;
  app.path = path;
  Builder b(app);
  std::error_code ec;
  if (fs::is_directory(path, ec)) {
    RollingSelection sel = select_rolling_parts(path);
    if (!sel.error.empty()) {
      io_error = sel.error;
      return app;
    }
    for (auto& note : sel.notes) b.problem(0, std::move(note));
    for (const auto& f : sel.files) {
      std::string e;
      read_one(f, b, app, e);
      if (!e.empty()) b.problem(0, f + ": " + e);
    }
    // appstatus_<app>[.inprogress]: the application is complete when the marker has no suffix.
    for (const auto& entry : fs::directory_iterator(path, ec)) {
      std::string name = entry.path().filename().string();
      if (name.rfind("appstatus_", 0) == 0 && name.find(".inprogress") == std::string::npos) app.complete = true;
    }
  } else {
    read_one(path, b, app, io_error);
  }
  if (io_error.empty() && !app.looks_like_event_log)
    io_error =
        app.lines == 0 ? "empty file: not an event log" : "no Spark listener event in the file: not an event log";
  app.finish();
  return app;
}

bool looks_like_event_log(std::string_view head) {
  auto first = head.find_first_not_of(" \t\r\n");
  if (first == std::string_view::npos || head[first] != '{') return false;
  head = head.substr(first, 200);
  return head.find("\"Event\"") != std::string_view::npos && head.find("SparkListener") != std::string_view::npos;
}

bool is_event_log_path(const std::string& path) {
  std::error_code ec;
  if (fs::is_directory(path, ec)) return !rolling_log_files(path).empty();
  Codec c = codec_for_path(path);
  if (c != Codec::none && c != Codec::gzip) return true;
  std::string err;
  auto s = open_stream(path, c, err);
  if (!s) return false;
  std::string head;
  while (head.size() < 256 && s->read(head)) {
  }
  return looks_like_event_log(head);
}

}  // namespace planlint::eventlog
