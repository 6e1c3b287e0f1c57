// Input reading, atomic report writing and the parse / rules / rule subcommands.
#include "cli/commands.hpp"

#include <filesystem>

#include "eventlog/codec.hpp"
#include "eventlog/reader.hpp"
#include "lint/eventlog_engine.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <condition_variable>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <stdexcept>
#include <thread>

#include "fix/fixer.hpp"
#include "lint/diff_engine.hpp"
#include "lint/rule.hpp"
#include "plan/dump.hpp"
#include "plan/plan.hpp"
#include "report/plan_graph.hpp"
#include "report/report.hpp"
#include "util/files.hpp"
#include "util/memory.hpp"

namespace planlint::cli {
namespace fs = std::filesystem;

namespace {

// `event_log` (when given) is set if the file turns out to be a plain event log, from its first
// bytes: then `text` holds only those.
bool read_all(const Input& in, std::string& text, std::string& error, bool* event_log = nullptr) {
  if (in.from_stdin) {
    util::ReadResult r = util::read_stdin_bounded();
    if (!r.error.empty()) {
      error = r.error;
      return false;
    }
    text = std::move(r.text);
    return true;
  }
  util::ReadResult r = event_log == nullptr
                           ? util::read_file_bounded(in.path)
                           : util::read_file_bounded(in.path, util::kMaxInputBytes, [](std::string_view head) {
                               return eventlog::looks_like_event_log(head);
                             });
  if (event_log != nullptr) *event_log = r.stopped;
  if (!r.error.empty()) {
    error = r.error;
    return false;
  }
  text = std::move(r.text);
  return true;
}

}  // namespace

namespace {
// A Python file's analysis (the chains, calls and arguments rules read; the syntax tree is held for
// 16 KiB of statements at a time) needs up to about 10 times its size in memory for dense generated
// code (bench/scaling; real code about 5 times): past 128 MiB (generated code, not a job anyone
// reviews) it is refused with a message rather than risking the machine. Notebooks keep the general
// 256 MiB input limit: most of a large one is outputs.
constexpr std::size_t kMaxPythonBytes = std::size_t{128} * 1024 * 1024;
std::string python_too_large(const std::string& path, const std::string& text) {
  bool plain_python = path.size() >= 3 && path.compare(path.size() - 3, 3, ".py") == 0 &&
                      text.rfind("# Databricks notebook source", 0) != 0;
  if (!plain_python || text.size() <= kMaxPythonBytes) return {};
  return "Python source larger than 128 MiB: not analysed (its analysis could need about 10 times that in memory)";
}

lint::FileResult lint_one_unguarded(const Input& in, const lint::ResultCache* cache) {
  if (!in.config_error.empty()) {
    lint::FileResult r;
    r.path = in.path;
    r.io_error = in.config_error;
    return r;
  }
  // An event log passed to plain `planlint` is diagnosed as `planlint eventlog` would, its findings
  // reported like any other file's.
  // A compressed one is told by its suffix (or, gzip, its decompressed head); a plain one by its
  // first bytes, in the same read that would take the file's text.
  bool maybe_event_log = !in.from_stdin && !lint::is_source_path(in.path);
  std::error_code ec;
  if (maybe_event_log && eventlog::codec_for_path(in.path) != eventlog::Codec::none &&
      std::filesystem::is_regular_file(in.path, ec) && eventlog::is_event_log_path(in.path))
    return lint::to_file_result(lint::analyze_event_log(in.path, in.options()), in.options());
  std::string text, error;
  bool event_log = false;
  if (!read_all(in, text, error, maybe_event_log ? &event_log : nullptr)) {
    lint::FileResult r;
    r.path = in.path;
    r.io_error = error;
    return r;
  }
  if (event_log) return lint::to_file_result(lint::analyze_event_log(in.path, in.options()), in.options());
  if (auto too_big = python_too_large(in.path, text); !too_big.empty()) {
    lint::FileResult r;
    r.path = in.path;
    r.io_error = too_big;
    return r;
  }
  bool cached = cache != nullptr && !in.from_stdin;
  std::filesystem::path entry = cached ? cache->entry(in.path, text, in.options()) : std::filesystem::path();
  if (cached)
    if (auto hit = cache->load(entry, in.path)) return std::move(*hit);
  // stdin: --stdin-filename decides the kind, as a file name would. The text is handed on, not copied.
  lint::FileResult r = lint::is_source_path(in.path) ? lint::lint_source_text(in.path, std::move(text), in.options())
                                                     : lint::lint_plan_text(in.path, std::move(text), in.options());
  if (cached) cache->store(entry, in.path, r);
  return r;
}
// Whatever goes wrong inside one file (an exception from a library, memory), the other files are
// still linted and the run ends with an error naming the file: never a crash.
lint::FileResult lint_one(const Input& in, const lint::ResultCache* cache) {
  try {
    return lint_one_unguarded(in, cache);
  } catch (const std::exception& e) {
    lint::FileResult r;
    r.path = in.path;
    r.io_error = std::string("internal error: ") + e.what();
    return r;
  }
}

}  // namespace

namespace {

// The input at `i`, or nullptr after the last; it may wait for the input to be made.
using InputSource = std::function<const Input*(std::size_t i)>;

void lint_from(const InputSource& source, unsigned jobs, const lint::ResultCache* cache, const ResultSink& sink,
               std::size_t max_window = SIZE_MAX) {
  jobs = std::min(jobs, util::max_jobs());
  if (jobs <= 1) {
    for (std::size_t i = 0;; ++i) {
      const Input* in = source(i);
      if (in == nullptr) return;
      sink(i, lint_one(*in, cache));
    }
  }
  // Inputs are taken in order while within `window` of the first result not yet handed to the sink,
  // by jobs - 1 worker threads and by this thread, which also runs the sink, in input order: it hands
  // over every finished result in order at once, lints the next input itself when the one it needs
  // is not ready, and sleeps only when the window is full. A thread is woken only when it waits for
  // what just changed, so that small files do not cost a context switch each. The number of inputs
  // is known once the source has said there is none at some index (`end`).
  // The window is jobs * 8 inputs, and up to jobs * 128 while the results waiting to be reported
  // hold fewer than kHeldFindings findings: one long file no longer stops the other threads after 8
  // files each (plans vary a hundredfold in size), and a run of large results is not held 256 deep.
  // A bounded source holds no more than max_window inputs past the last one reported: any input a
  // thread takes can be made without waiting for a report (which would wait for that thread).
  constexpr std::size_t kHeldFindings = 16384;
  const std::size_t window = std::max<std::size_t>(1, std::min(std::size_t{jobs} * 8, max_window));
  const std::size_t wide_window = std::max(window, std::min(std::size_t{jobs} * 128, max_window));
  std::mutex mutex;
  std::condition_variable room, arrived;
  std::map<std::size_t, lint::FileResult> done;
  std::size_t next = 0, taken = 0, waiting_workers = 0, end = SIZE_MAX, held = 0;  // held: findings in done
  bool sink_waiting = false, stop = false;
  auto has_room = [&] {
    return next < end && (next < taken + window || (next < taken + wide_window && held < kHeldFindings));
  };
  // Under the lock: the source has no input at `i`.
  auto ended_at = [&](std::size_t i) {
    end = std::min(end, i);
    return sink_waiting || waiting_workers > 0;
  };
  auto worker = [&] {
    for (;;) {
      std::size_t i = 0;
      {
        std::unique_lock lock(mutex);
        while (!stop && next < end && !has_room()) {
          ++waiting_workers;
          room.wait(lock);
          --waiting_workers;
        }
        if (stop || next >= end) return;
        i = next++;
      }
      const Input* in = source(i);
      if (in == nullptr) {
        bool wake = false;
        {
          std::lock_guard lock(mutex);
          wake = ended_at(i);
        }
        if (wake) {
          arrived.notify_one();
          room.notify_all();
        }
        return;
      }
      lint::FileResult r = lint_one(*in, cache);
      bool wake = false;
      {
        std::lock_guard lock(mutex);
        held += r.diagnostics.size();
        done.emplace(i, std::move(r));
        wake = sink_waiting && i == taken;
      }
      if (wake) arrived.notify_one();
    }
  };
  std::vector<std::thread> pool = util::start_workers(jobs - 1, worker);
  auto stop_workers = [&] {
    {
      std::lock_guard lock(mutex);
      stop = true;
    }
    room.notify_all();
    for (auto& t : pool) t.join();
  };
  std::vector<lint::FileResult> batch;
  try {
    for (;;) {
      std::size_t first = taken;
      std::unique_lock lock(mutex);
      if (taken >= end) break;
      if (done.count(taken) == 0 && has_room()) {
        std::size_t i = next++;
        lock.unlock();
        const Input* in = source(i);
        if (in == nullptr) {
          lock.lock();
          bool wake = ended_at(i);
          lock.unlock();
          if (wake) room.notify_all();
          continue;
        }
        lint::FileResult r = lint_one(*in, cache);
        lock.lock();
        held += r.diagnostics.size();
        done.emplace(i, std::move(r));
        continue;
      }
      sink_waiting = true;
      arrived.wait(lock, [&] { return done.count(taken) > 0 || taken >= end; });
      sink_waiting = false;
      for (auto it = done.begin(); it != done.end() && it->first == taken; it = done.erase(it), ++taken) {
        held -= it->second.diagnostics.size();
        batch.push_back(std::move(it->second));
      }
      bool wake = waiting_workers > 0;
      lock.unlock();
      if (wake) room.notify_all();
      for (std::size_t k = 0; k < batch.size(); ++k) sink(first + k, std::move(batch[k]));
      batch.clear();
    }
  } catch (...) {
    // The sink failed (a write error, say): the workers stop after the file each has in hand.
    stop_workers();
    throw;
  }
  for (auto& t : pool) t.join();
}

}  // namespace

void lint_inputs(const std::vector<Input>& inputs, unsigned jobs, const lint::ResultCache* cache,
                 const ResultSink& sink) {
  jobs = std::max(1U, std::min<unsigned>(jobs, static_cast<unsigned>(inputs.size())));
  lint_from([&](std::size_t i) { return i < inputs.size() ? &inputs[i] : nullptr; }, jobs, cache, sink);
}

void lint_inputs(InputQueue& inputs, unsigned jobs, const lint::ResultCache* cache, const ResultSink& sink) {
  // Each input is let go once its result is reported: the queue holds only what is ahead of the report.
  lint_from([&](std::size_t i) { return inputs.wait(i); }, jobs, cache,
            [&](std::size_t i, lint::FileResult&& r) {
              sink(i, std::move(r));
              inputs.release_before(i + 1);
            },
            inputs.capacity() - inputs.release_batch() + 1);
}

const lint::LintOptions& Input::options() const {
  static const lint::LintOptions defaults;
  return shared_options ? *shared_options : defaults;
}

InputQueue::InputQueue(std::size_t capacity)
    : capacity_(std::max<std::size_t>(1, capacity)),
      batch_(std::clamp<std::size_t>(capacity_ / 8, 1, 64)),
      slots_(new const Input*[capacity_]) {}

bool InputQueue::push(Input in) {
  {
    std::unique_lock lock(mutex_);
    room_.wait(lock, [&] { return inputs_.size() < capacity_ || abandoned_; });
    if (abandoned_) return false;
    inputs_.push_back(std::move(in));
    std::size_t i = base_ + inputs_.size() - 1;
    slots_[i % capacity_] = &inputs_.back();
    published_.store(i + 1, std::memory_order_release);
  }
  pushed_.notify_all();
  return true;
}

void InputQueue::close() {
  {
    std::lock_guard lock(mutex_);
    closed_ = true;
  }
  pushed_.notify_all();
}

// An input pushed and not released keeps its slot: input i + capacity_ is pushed only after input i
// is released.
const Input* InputQueue::wait(std::size_t i) {
  if (i < published_.load(std::memory_order_acquire)) return slots_[i % capacity_];
  std::unique_lock lock(mutex_);
  pushed_.wait(lock, [&] { return i < base_ + inputs_.size() || closed_; });
  return i >= base_ && i < base_ + inputs_.size() ? &inputs_[i - base_] : nullptr;
}

const Input& InputQueue::operator[](std::size_t i) const {
  if (i >= published_.load(std::memory_order_acquire)) throw std::out_of_range("input not pushed yet");
  return *slots_[i % capacity_];
}

void InputQueue::release_before(std::size_t i) {
  release_to_ = std::max(release_to_, i);
  // base_ changes only here, on the one thread that releases: read without the lock.
  bool full = published_.load(std::memory_order_acquire) - base_ >= capacity_;
  if (release_to_ - base_ < batch_ && !full) return;
  bool freed = false;
  {
    std::lock_guard lock(mutex_);
    bool was_full = inputs_.size() >= capacity_;
    for (; base_ < release_to_ && !inputs_.empty(); ++base_) inputs_.pop_front();
    freed = was_full && inputs_.size() < capacity_;
  }
  if (freed) room_.notify_all();
}

void InputQueue::abandon() {
  {
    std::lock_guard lock(mutex_);
    abandoned_ = true;
  }
  room_.notify_all();
}

void fix_inputs(const std::vector<Input>& inputs, FixRun& run, const ResultSink& sink) {
  fix::FixOptions fo;
  fo.unsafe = run.unsafe;
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    const Input& in = inputs[i];
    std::string text, error;
    if (!in.config_error.empty() || !read_all(in, text, error) || !python_too_large(in.path, text).empty()) {
      if (error.empty()) error = python_too_large(in.path, text);
      if (!in.config_error.empty()) error = in.config_error;
      lint::FileResult r;
      r.path = in.path;
      r.io_error = error;
      sink(i, std::move(r));
      continue;
    }
    fix::FixOutcome o;
    try {
      o = fix::fix_text(in.path, text, in.options(), fo);
    } catch (const std::exception& e) {
      lint::FileResult r;
      r.path = in.path;
      r.io_error = std::string("internal error: ") + e.what();
      sink(i, std::move(r));
      continue;
    }
    for (const auto& d : o.dropped) std::cerr << "planlint: warning: " << in.path << ":" << d << "\n";
    if (o.fixed != o.original) {
      bool written = true;
      if (run.diff_only) {
        run.diff += fix::unified_diff(in.path, o.original, o.fixed);
      } else if (in.from_stdin) {
        run.stdin_output += o.fixed;
      } else if (auto err = fix::write_file_atomically(in.path, o.fixed); !err.empty()) {
        // Nothing was fixed in this file: its findings stay as they were before the fix.
        o.remaining = lint::is_source_path(in.path) ? lint::lint_source_text(in.path, o.original, in.options())
                                                    : lint::lint_plan_text(in.path, o.original, in.options());
        o.remaining.io_error = err;
        o.remaining.unwritten = true;
        written = false;
      }
      if (written) {
        run.applied += o.applied;
        ++run.files_changed;
      }
    } else if (in.from_stdin && !run.diff_only) {
      run.stdin_output += o.fixed;
    }
    sink(i, std::move(o.remaining));
  }
}

bool write_output(const std::string& path, const std::string& text) {
  if (path.empty() || path == "-") {
    std::cout << text << std::flush;
    if (!std::cout) {
      std::cerr << "planlint: error: cannot write the report to standard output (" << std::strerror(errno) << ")\n";
      return false;
    }
    return true;
  }
  if (auto err = util::replace_file_contents(path, text); !err.empty()) {
    std::cerr << "planlint: error: " << err << "\n";
    return false;
  }
  return true;
}

std::string ReportWriter::open(const std::string& path) {
  to_stdout_ = path.empty() || path == "-";
  if (to_stdout_) return {};
  return file_.open(path);
}

void ReportWriter::write(std::string_view chunk) {
  if (failed_ || chunk.empty()) return;
  if (to_stdout_) {
    std::cout.write(chunk.data(), static_cast<std::streamsize>(chunk.size()));
    if (!std::cout) {
      failed_ = true;
      errno_ = errno;
    }
  } else if (!file_.write(chunk)) {
    failed_ = true;
  }
}

std::string ReportWriter::commit() {
  if (!to_stdout_) return file_.commit();
  if (!failed_) {
    std::cout.flush();
    if (!std::cout) {
      failed_ = true;
      errno_ = errno;
    }
  }
  if (failed_) return std::string("cannot write the report to standard output (") + std::strerror(errno_) + ")";
  return {};
}

namespace {
std::string baseline_key(const std::string& file) {
  std::error_code ec;
  fs::path rel = fs::absolute(file, ec).lexically_relative(fs::current_path(ec));
  return rel.empty() ? file : rel.generic_string();
}
}  // namespace

void BaselineWriter::add(const lint::FileResult& result) {
  if (result.diagnostics.empty()) return;
  std::string file = baseline_key(result.path);
  for (const auto& d : result.diagnostics)
    findings_.push_back({{"file", file},
                         {"rule", d.rule->name},
                         {"fingerprint", d.fingerprint},
                         {"line", d.location.line},
                         {"message", d.message}});
}

std::string BaselineWriter::write(const std::string& path) const {
  nlohmann::ordered_json doc{{"planlint_baseline", 1}, {"findings", findings_}};
  if (!write_output(path, doc.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n"))
    return "cannot write baseline " + path;
  return {};
}

std::string Baseline::load(const std::string& path) {
  util::ReadResult read = util::read_file_bounded(path);
  if (!read.error.empty()) return "cannot read baseline " + path + ": " + read.error;
  nlohmann::json doc;
  try {
    doc = nlohmann::json::parse(read.text);
  } catch (const nlohmann::json::exception& e) {  // parse errors, and numbers out of range (9e9134)
    return path + ": not a planlint baseline: " + e.what();
  }
  if (!doc.is_object() || !doc.contains("findings") || !doc["findings"].is_array())
    return path + ": not a planlint baseline (no \"findings\" array)";
  known_.clear();
  for (const auto& f : doc["findings"]) {
    if (!f.is_object() || !f.contains("file") || !f.contains("fingerprint") || !f["file"].is_string() ||
        !f["fingerprint"].is_string())
      return path + ": every finding needs \"file\" and \"fingerprint\" strings";
    known_.emplace(f["file"].get<std::string>(), f["fingerprint"].get<std::string>());
  }
  return {};
}

void Baseline::filter(lint::FileResult& result) {
  if (result.diagnostics.empty()) return;
  std::string key = baseline_key(result.path);
  std::vector<lint::Diagnostic> kept;
  for (auto& d : result.diagnostics) {
    auto it = known_.find({key, d.fingerprint.str()});
    if (it != known_.end()) {
      known_.erase(it);
      continue;
    }
    kept.push_back(std::move(d));
  }
  result.diagnostics = std::move(kept);
}

std::string apply_baseline(const std::string& path, std::vector<lint::FileResult>& results) {
  Baseline b;
  if (auto err = b.load(path); !err.empty()) return err;
  for (auto& r : results) b.filter(r);
  return {};
}

int run_diff(const DiffRun& run) {
  std::string before_text, after_text, error;
  if (run.before == "-" && run.after == "-") {
    std::cerr << "planlint: error: only one of BEFORE and AFTER can be '-' (standard input)\n";
    return 2;
  }
  // Event logs (plain, compressed or rolling folders) are read by the event-log frontend, plans here.
  bool logs[2] = {run.before != "-" && eventlog::is_event_log_path(run.before),
                  run.after != "-" && eventlog::is_event_log_path(run.after)};
  int side = 0;
  for (auto [path, text] : {std::pair{&run.before, &before_text}, std::pair{&run.after, &after_text}})
    if (!logs[side++] && !read_all({*path, *path == "-"}, *text, error)) {
      std::cerr << "planlint: error: " << *path << ": " << error << "\n";
      return 2;
    }
  if (logs[0] != logs[1]) {
    std::cerr << "planlint: error: " << (logs[0] ? run.before : run.after)
              << " is an event log and the other input is not: diff compares two plan files or two event logs\n";
    return 2;
  }
  bool picture = run.format == "dot" || run.format == "html";
  std::vector<lint::DiffedPlan> pairs;
  std::vector<lint::DiffedPlan>* pictures = picture ? &pairs : nullptr;
  lint::PlanDiffResult d = logs[0] ? lint::diff_event_logs(run.before, run.after, run.options, pictures)
                                   : lint::diff_plan_texts(run.before, std::move(before_text), run.after,
                                                           std::move(after_text), run.options, pictures);
  std::vector<report::PlanGraph> graphs;
  for (auto& p : pairs)
    graphs.push_back(report::diff_graph(*p.after, p.after->plans[p.plan], p.diff, p.findings, std::move(p.title)));
  if (!d.result.io_error.empty()) {
    std::cerr << "planlint: error: " << d.result.path << ": " << d.result.io_error << "\n";
    return 2;
  }
  std::size_t failing = 0;
  for (auto& diag : d.result.diagnostics) {
    diag.fails = run.options.fails(diag);
    failing += diag.fails ? 1 : 0;
  }
  std::size_t n = d.result.diagnostics.size();
  auto plural = [](std::size_t k, const char* one, const char* many) {
    return std::to_string(k) + " " + (k == 1 ? one : many);
  };
  std::string summary;
  if (d.no_plan_change() && n == 0) {
    summary = "No plan change.";
  } else {
    summary = d.no_plan_change()
                  ? std::string("No operator changed")
                  : "Plan changed: " + plural(d.added, "operator", "operators") + " added, " +
                        std::to_string(d.removed) + " removed, " + std::to_string(d.changed) + " changed";
    if (d.executions_before + d.executions_after > 0)
      summary += " over " + plural(d.executions_after, "SQL execution", "SQL executions") + " (" +
                 std::to_string(d.executions_before) + " before)";
    else if (d.plans_before != d.plans_after)
      summary +=
          " (" + plural(d.plans_before, "plan", "plans") + " before, " + std::to_string(d.plans_after) + " after)";
    summary += "; " + plural(n, "finding", "findings");
    if (d.new_findings > 0) summary += " (" + std::to_string(d.new_findings) + " new of plan rules)";
    summary += ", " + std::to_string(failing) + " failing the diff.";
  }
  std::string out;
  if (picture) {
    out = run.format == "dot" ? report::render_dot(graphs)
                              : report::render_html(graphs, "planlint diff " + run.before + " " + run.after, summary);
    if (!write_output(run.output, out)) return 2;
    return failing > 0 && !run.exit_zero ? 1 : 0;
  }
  report::ReportOptions ro{run.color, run.tool_version};
  auto reporter = report::make_reporter(run.format, ro);
  if (run.format == "markdown") out += "### planlint diff\n\n" + summary + "\n\n";
  reporter->begin(out);
  reporter->file(d.result, out);
  reporter->end(out);
  if (run.format == "text" && !run.quiet) out += summary + "\n";
  if (!write_output(run.output, out)) return 2;
  return failing > 0 && !run.exit_zero ? 1 : 0;
}

int run_pictures(const std::vector<Input>& inputs, const std::string& format, const std::string& output) {
  std::vector<report::PlanGraph> graphs;
  std::size_t findings = 0, failing = 0;
  bool error = false;
  for (const auto& in : inputs) {
    if (lint::is_source_path(in.path)) {
      std::cerr << "planlint: warning: " << in.path << ": --format " << format
                << " draws plans; PySpark sources have no picture (use another format)\n";
      continue;
    }
    std::string text, why;
    if (!read_all(in, text, why)) {
      std::cerr << "planlint: error: " << in.path << ": " << why << "\n";
      error = true;
      continue;
    }
    lint::FileResult r = lint::lint_plan_text(in.path, text, in.options());
    for (auto& d : r.diagnostics) {
      d.fails = in.options().fails(d);
      failing += d.fails ? 1 : 0;
    }
    findings += r.diagnostics.size();
    auto doc = plan::parse_document(std::move(text), in.path);
    for (auto& g : report::plan_graphs(doc, r.diagnostics)) graphs.push_back(std::move(g));
  }
  std::string summary = std::to_string(findings) + (findings == 1 ? " finding" : " findings") + " in " +
                        std::to_string(graphs.size()) + (graphs.size() == 1 ? " plan" : " plans");
  std::string out = format == "dot" ? report::render_dot(graphs) : report::render_html(graphs, "planlint", summary);
  if (!write_output(output, out)) return 2;
  if (error) return 2;
  return failing > 0 ? 1 : 0;
}

int run_parse(const std::string& file, const std::string& dump) {
  std::string text, error;
  if (!read_all({file, file == "-"}, text, error)) {
    std::cerr << "planlint: error: " << file << ": " << error << "\n";
    return 2;
  }
  auto doc = plan::parse_document(std::move(text), file);
  if (dump == "dot" || dump == "html") {
    auto graphs = report::plan_graphs(doc, {});
    std::cout << (dump == "dot" ? report::render_dot(graphs)
                                : report::render_html(graphs, "planlint parse " + file, ""));
  } else {
    std::cout << (dump == "json" ? plan::dump_json(doc) : plan::dump_text(doc));
  }
  for (const auto& e : doc.errors)
    std::cerr << file << ":" << e.line << ":" << e.column << ": error: " << e.message << "\n";
  return doc.errors.empty() ? 0 : 1;
}

int run_rules(const std::string& format) {
  std::vector<const lint::RuleInfo*> rules;
  for (const auto& r : lint::all_rules()) rules.push_back(r.info);
  if (format == "json") {
    nlohmann::ordered_json a = nlohmann::ordered_json::array();
    for (const auto& rule : lint::all_rules()) {
      const lint::RuleInfo* r = rule.info;
      // What the rule reads: plans, PySpark sources, event logs (the syntax rules: their frontend's input).
      std::vector<std::string> inputs;
      if (rule.check != nullptr || r == &lint::plan_syntax_rule()) inputs.emplace_back("plan");
      if (rule.source_check != nullptr || r == &lint::python_syntax_rule() || r == &lint::unused_noqa_rule())
        inputs.emplace_back("source");
      if (rule.eventlog_check != nullptr || rule.check != nullptr || r == &lint::event_log_syntax_rule())
        inputs.emplace_back("eventlog");
      if (rule.diff_check != nullptr) inputs.emplace_back("plan diff");
      a.push_back({{"id", r->id},
                   {"name", r->name},
                   {"severity", lint::to_string(r->severity)},
                   {"impact", lint::to_string(r->impact)},
                   {"fix", lint::to_string(r->fix)},
                   {"legacy_id", lint::legacy_id(*r)},
                   {"summary", r->summary},
                   {"inputs", inputs}});
    }
    std::cout << a.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
    return 0;
  }
  std::cout << fmt::format("{:<6} {:<30} {:<8} {:<7} {:<10} {}\n", "id", "name", "severity", "impact", "fix",
                           "summary");
  std::string_view family;
  for (const auto* r : rules) {
    for (const auto& f : lint::rule_families())
      if (r->id.substr(0, f.prefix.size()) == f.prefix && f.prefix != family) {
        family = f.prefix;
        std::cout << fmt::format("\n{}  {}\n", f.prefix, f.title);
      }
    std::cout << fmt::format("{:<6} {:<30} {:<8} {:<7} {:<10} {}\n", r->id, r->name, lint::to_string(r->severity),
                             lint::to_string(r->impact), lint::to_string(r->fix), r->summary);
  }
  return 0;
}

int run_rule(const std::string& name) {
  const lint::RuleInfo* r = lint::find_rule(name);
  if (r == nullptr) {
    std::cerr << "planlint: error: unknown rule '" << name << "' (see `planlint rules`)\n";
    return 2;
  }
  std::cout << fmt::format("# {} ({})\n\n{}\n\nSeverity: {}. Impact: {}. Fix: {}.\n\n{}", r->name, r->id, r->summary,
                           lint::to_string(r->severity), lint::to_string(r->impact), lint::to_string(r->fix), r->doc);
  return 0;
}

}  // namespace planlint::cli
