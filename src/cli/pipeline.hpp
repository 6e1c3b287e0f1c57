// The linting pipeline: inputs (with the options each is linted under) read and linted on worker
// threads, results handed to a sink in input order; fixes applied one file at a time.
#pragma once

#include <atomic>
#include <condition_variable>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "lint/cache.hpp"
#include "lint/config.hpp"
#include "lint/engine.hpp"

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
// The whole of an input (a file, or standard input), bounded; `event_log` (when given) is set if the
// file turns out to be a plain event log, from its first bytes: then `text` holds only those.
bool read_all(const Input& in, std::string& text, std::string& error, bool* event_log = nullptr);

}  // namespace planlint::cli
