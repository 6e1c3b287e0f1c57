// The CLI's pieces below argument parsing: reading inputs, linting them, writing reports, subcommands.
#pragma once

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "lint/cache.hpp"
#include "lint/config.hpp"
#include "lint/engine.hpp"
#include "util/files.hpp"

namespace planlint::cli {

struct Input {
  std::string path;
  bool from_stdin = false;
  // The file's configuration with the command line on top, shared by the inputs that have the same
  // (a folder of 10,000 files does not hold 10,000 copies); null stands for the defaults.
  std::shared_ptr<const lint::LintOptions> shared_options;
  std::string config_error;              // its configuration could not be read: reported instead of linting
  const lint::Config* config = nullptr;  // the configuration it is linted under, if any

  [[nodiscard]] const lint::LintOptions& options() const;
};

// Called with each input's result, in input order, on the calling thread.
using ResultSink = std::function<void(std::size_t index, lint::FileResult&& result)>;

// Lint every input on `jobs` threads and hand each result to `sink` in input order as soon as it and
// those before it are done; only a few results are ever held (workers wait when the sink falls
// behind), so memory does not grow with the number of files. With a cache, files whose bytes and
// options it has seen are not analysed again (stdin and event logs always are).
void lint_inputs(const std::vector<Input>& inputs, unsigned jobs, const lint::ResultCache* cache,
                 const ResultSink& sink);

// Inputs made on one thread (a folder walk) while others lint them: pushed in input order, read by
// index. It holds at most `capacity` inputs not yet released: push() waits for room, so that a walk
// far ahead of the linting does not hold the whole tree's inputs. An input already pushed is read
// without a lock (the linting threads ask for each one, and the thread that reports for each result),
// and inputs are let go a batch at a time: with the walk pushing beside them, a lock taken for every
// read made the three threads wait for each other every few files.
class InputQueue {
 public:
  explicit InputQueue(std::size_t capacity = 16384);
  // Waits while the queue is full; false (the input dropped) once abandon() was called.
  bool push(Input in);
  void close();  // no more inputs
  // The input at `i` (not released), waiting until it is pushed; nullptr when the queue was closed
  // before it.
  const Input* wait(std::size_t i);
  // An input already pushed (one wait() returned) and not released: no waiting.
  const Input& operator[](std::size_t i) const;
  // The inputs before `i` are no longer needed (their results were reported): they are let go once
  // release_batch() of them are waiting, or when the queue is full.
  void release_before(std::size_t i);
  // The run ends early: push() no longer waits for room (nor keeps anything).
  void abandon();
  [[nodiscard]] std::size_t capacity() const { return capacity_; }
  // Reported inputs held at most, minus one: inputs up to capacity() - release_batch() + 1 past the
  // last one reported always fit.
  [[nodiscard]] std::size_t release_batch() const { return batch_; }

 private:
  std::mutex mutex_;
  std::condition_variable pushed_, room_;
  std::deque<Input> inputs_;  // from index base_; guarded by mutex_
  std::size_t base_ = 0, capacity_, batch_;
  std::unique_ptr<const Input*[]> slots_;  // input i at i % capacity_ (elements of a deque stay put)
  std::atomic<std::size_t> published_{0};  // inputs pushed; slots_ below it are set
  std::size_t release_to_ = 0;             // release_before's bound (only its caller's thread)
  bool closed_ = false, abandoned_ = false;
};

// The same, linting inputs while they are still being pushed; each is released once the sink has it.
void lint_inputs(InputQueue& inputs, unsigned jobs, const lint::ResultCache* cache, const ResultSink& sink);

struct FixRun {
  bool unsafe = false;
  bool diff_only = false;  // --diff: print what --fix would change, write nothing
  std::string diff;        // the diffs, in input order
  int applied = 0;
  int files_changed = 0;
  std::string stdin_output;  // fixed stdin text, printed instead of the report's findings
};

// --fix / --diff: fix each input, write changed files atomically (not with --diff), and return the
// lint results of the fixed text.
void fix_inputs(const std::vector<Input>& inputs, FixRun& run, const ResultSink& sink);

// Write to FILE through a temporary file and a rename, so a crash never leaves half a report; "" is stdout.
bool write_output(const std::string& path, const std::string& text);

// A report written piece by piece: to stdout ("" or "-"), or to a temporary file beside FILE that
// commit() renames over it. A failed write is remembered and reported by commit().
class ReportWriter {
 public:
  std::string open(const std::string& path);  // an error message, empty on success
  void write(std::string_view chunk);
  std::string commit();  // an error message, empty on success

 private:
  bool to_stdout_ = true;
  bool failed_ = false;
  int errno_ = 0;
  util::ReplacementFile file_;
};

// Baselines: the fingerprints of known findings. Writing records them; applying drops the findings
// a baseline already holds (one per recorded entry), so only new ones are reported.
class Baseline {
 public:
  std::string load(const std::string& path);  // an error message, empty on success
  void filter(lint::FileResult& result);      // drops the findings the baseline holds
 private:
  std::multiset<std::pair<std::string, std::string>> known_;
};

class BaselineWriter {
 public:
  void add(const lint::FileResult& result);
  [[nodiscard]] std::size_t size() const { return findings_.size(); }
  std::string write(const std::string& path) const;  // an error message, empty on success

 private:
  nlohmann::ordered_json findings_ = nlohmann::ordered_json::array();
};

std::string apply_baseline(const std::string& path, std::vector<lint::FileResult>& results);

// `planlint diff BEFORE AFTER`: what a change did to the plans (text, json, sarif, github, markdown).
struct DiffRun {
  std::string before, after;
  std::string format = "text";
  std::string output;  // "" : stdout
  bool exit_zero = false, quiet = false, color = false;
  lint::LintOptions options;  // fail_on defaults to warning: improvements are information
  std::string tool_version;
};
int run_diff(const DiffRun& run);

// --format dot / html: the plans of the inputs as pictures with their findings (PySpark sources are
// skipped with a warning). Exit status as for a lint run.
int run_pictures(const std::vector<Input>& inputs, const std::string& format, const std::string& output);
int run_parse(const std::string& file, const std::string& dump);
int run_rules(const std::string& format);
int run_rule(const std::string& name);

}  // namespace planlint::cli
