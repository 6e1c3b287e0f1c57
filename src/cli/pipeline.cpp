// The linting pipeline: inputs read and linted on worker threads, results handed over in input
// order; fixes applied file by file.
#include "cli/pipeline.hpp"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <filesystem>
#include <iostream>
#include <mutex>
#include <thread>

#include "eventlog/codec.hpp"
#include "eventlog/reader.hpp"
#include "fix/fixer.hpp"
#include "lint/eventlog_engine.hpp"
#include "util/files.hpp"
#include "util/memory.hpp"

namespace planlint::cli {
namespace fs = std::filesystem;

bool read_all(const Input& in, std::string& text, std::string& error, bool* event_log) {
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

}  // namespace planlint::cli
