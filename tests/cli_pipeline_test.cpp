// The CLI's pipeline below argument parsing: results in input order whatever the number of threads,
// a failing sink stopping the run instead of the process, and the one read that both tells an
// event log from a plan and takes a plan's text.
#include <catch2/catch.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include <cstdlib>

#include "cli/pipeline.hpp"
#include "cli/walk.hpp"
#include "test_util.hpp"
#include "util/files.hpp"

namespace fs = std::filesystem;
using namespace planlint;

namespace {
struct TempDir {
  fs::path path;
  TempDir() {
    std::string tmpl = (fs::temp_directory_path() / "planlint-cli-XXXXXX").string();
    path = ::mkdtemp(tmpl.data());
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  TempDir(TempDir&&) = delete;
  TempDir& operator=(TempDir&&) = delete;
};

void write(const fs::path& p, const std::string& text) { std::ofstream(p, std::ios::binary) << text; }

// Plans whose findings differ from file to file: i hardcodes i + 1 shuffle partitions.
std::vector<cli::Input> plan_inputs(const TempDir& dir, int n) {
  std::vector<cli::Input> inputs;
  for (int i = 0; i < n; ++i) {
    fs::path p = dir.path / ("plan" + std::to_string(i) + ".txt");
    std::string plan = "== Physical Plan ==\n";
    for (int k = 0; k <= i % 5; ++k)
      plan += std::string(static_cast<std::size_t>(k) * 3, ' ') + "+- Sort [a#1 ASC NULLS FIRST], true, 0\n";
    plan += "+- Exchange hashpartitioning(a#1, " + std::to_string(i + 1) + "), ENSURE_REQUIREMENTS, [id=#1]\n";
    plan += "   +- CartesianProduct\n      :- Scan parquet t[a#1]\n      +- Scan parquet u[b#2]\n";
    write(p, plan);
    inputs.push_back({p.string(), false, {}, {}});
  }
  inputs.push_back({(dir.path / "missing.txt").string(), false, {}, {}});  // an I/O error in the middle of the order
  std::swap(inputs[static_cast<std::size_t>(n) / 2], inputs.back());
  return inputs;
}

std::string summary(const lint::FileResult& r) {
  std::string s = r.path + "|" + r.io_error;
  for (const auto& d : r.diagnostics)
    s += "|" + std::string(d.rule->name) + "@" + std::to_string(d.location.line) + ":" + d.message;
  return s;
}
}  // namespace

TEST_CASE("results reach the sink once each, in input order, on any number of threads", "[cli]") {
  TempDir dir;
  auto inputs = plan_inputs(dir, 150);
  std::vector<std::string> serial;
  cli::lint_inputs(inputs, 1, nullptr, [&](std::size_t i, lint::FileResult&& r) {
    CHECK(i == serial.size());
    serial.push_back(summary(r));
  });
  REQUIRE(serial.size() == inputs.size());
  CHECK(serial[75].find("no such file") != std::string::npos);
  CHECK(serial[0] != serial[1]);
  for (unsigned jobs : {2U, 3U, 8U}) {
    std::vector<std::string> got;
    cli::lint_inputs(inputs, jobs, nullptr, [&](std::size_t i, lint::FileResult&& r) {
      CHECK(i == got.size());
      got.push_back(summary(r));
    });
    CHECK(got == serial);
  }
}

TEST_CASE("a sink that throws stops the workers and the exception reaches the caller", "[cli]") {
  TempDir dir;
  auto inputs = plan_inputs(dir, 200);
  for (unsigned jobs : {1U, 2U, 4U}) {
    std::size_t seen = 0;
    CHECK_THROWS_AS(cli::lint_inputs(inputs, jobs, nullptr,
                                     [&](std::size_t i, lint::FileResult&&) {
                                       ++seen;
                                       if (i == 10) throw std::runtime_error("disk full");
                                     }),
                    std::runtime_error);
    CHECK(seen == 11);
  }
}

TEST_CASE("inputs linted while another thread still makes them come out as from a list", "[cli]") {
  TempDir dir;
  auto inputs = plan_inputs(dir, 120);
  std::vector<std::string> serial;
  cli::lint_inputs(inputs, 1, nullptr, [&](std::size_t, lint::FileResult&& r) { serial.push_back(summary(r)); });
  for (unsigned jobs : {1U, 2U, 3U, 8U}) {
    cli::InputQueue queue;
    // The producer stops now and then, so that the linting threads catch up with it and wait.
    std::thread producer([&] {
      for (std::size_t i = 0; i < inputs.size(); ++i) {
        if (i % 17 == 0) std::this_thread::sleep_for(std::chrono::milliseconds(2));
        queue.push(inputs[i]);
      }
      queue.close();
    });
    std::vector<std::string> got;
    cli::lint_inputs(queue, jobs, nullptr, [&](std::size_t i, lint::FileResult&& r) {
      CHECK(i == got.size());
      CHECK(queue[i].path == r.path);
      got.push_back(summary(r));
    });
    producer.join();
    CHECK(got == serial);
  }
  // Nothing pushed: nothing linted, and no wait.
  for (unsigned jobs : {1U, 2U}) {
    cli::InputQueue empty;
    empty.close();
    std::size_t seen = 0;
    cli::lint_inputs(empty, jobs, nullptr, [&](std::size_t, lint::FileResult&&) { ++seen; });
    CHECK(seen == 0);
    CHECK(empty.wait(0) == nullptr);
  }
  // A sink that throws while the producer is still at work: the exception reaches the caller.
  cli::InputQueue queue;
  std::thread producer([&] {
    for (const auto& in : inputs) queue.push(in);
    queue.close();
  });
  CHECK_THROWS_AS(cli::lint_inputs(queue, 2, nullptr,
                                   [&](std::size_t i, lint::FileResult&&) {
                                     if (i == 5) throw std::runtime_error("disk full");
                                   }),
                  std::runtime_error);
  producer.join();
}

TEST_CASE("a bounded input queue: the producer waits for room, and is let go when the run ends", "[cli]") {
  TempDir dir;
  // A producer pushing `ins` into a queue of `capacity` while `jobs` threads lint them: every input
  // is pushed, and the results are the serial ones, in order.
  auto through_queue = [](const std::vector<cli::Input>& ins, std::size_t capacity, std::size_t batch) {
    std::vector<std::string> serial;
    cli::lint_inputs(ins, 1, nullptr, [&](std::size_t, lint::FileResult&& r) { serial.push_back(summary(r)); });
    for (unsigned jobs : {1U, 2U, 4U}) {
      cli::InputQueue queue(capacity);
      CHECK(queue.release_batch() == batch);
      std::size_t pushed = 0;
      std::thread producer([&] {
        for (const auto& in : ins) pushed += queue.push(in) ? 1 : 0;
        queue.close();
      });
      std::vector<std::string> got;
      cli::lint_inputs(queue, jobs, nullptr, [&](std::size_t i, lint::FileResult&& r) {
        CHECK(queue[i].path == r.path);
        got.push_back(summary(r));
      });
      producer.join();
      CHECK(pushed == ins.size());
      CHECK(got == serial);
    }
  };
  auto inputs = plan_inputs(dir, 60);
  through_queue(inputs, 3, 1);  // fewer than the inputs in flight with 4 threads
  // Inputs are let go a batch at a time (here 12 of a queue of 100): a walk far ahead of the
  // linting still waits for room, and no linting thread waits for an input that has none.
  through_queue(plan_inputs(dir, 400), 100, 12);
  // Nobody reads: the producer waits on a full queue until abandon() lets it go.
  cli::InputQueue full(2);
  std::atomic<int> refused{0};
  std::thread producer([&] {
    for (const auto& in : inputs)
      if (!full.push(in)) ++refused;
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  CHECK(full.wait(1) != nullptr);
  full.abandon();
  producer.join();
  CHECK(refused == static_cast<int>(inputs.size()) - 2);
}

namespace {
bool wanted_py(std::string_view name) { return name.size() > 3 && name.substr(name.size() - 3) == ".py"; }
}  // namespace

TEST_CASE("a folder walk gives files in the order of their sorted paths, as it finds them", "[cli]") {
  TempDir dir;
  fs::path root = dir.path / "repo";
  // Names that sort differently as names and as paths: "a" before "a-b.py" as a name, after it
  // as a folder ("a/" > "a-b.py", '/' > '-'); "a0" after "a/"; "q1" before "q10", "Z" before "a".
  for (const char* folder : {"a", "a/b", "a0", "q1", "q10", "Z", ".hidden", "skipme", "skipme/deep"})
    fs::create_directories(root / folder);
  std::vector<std::string> files{"a-b.py",  "a.py",         "a/x.py",   "a/b/y.py",    "a/b.py",
                                 "a0/z.py", "q1/m.py",      "q10/m.py", "q1.py",       "Z/up.py",
                                 "é.py",    ".hidden/h.py", "a/!.py",   "skipme/s.py", "skipme/deep/t.py"};
  for (const auto& f : files) write(root / f, "x = 1\n");
  write(root / "notes.txt", "not wanted\n");
  write(root / "a" / "pyproject.toml", "[tool.other]\n");
  fs::create_symlink(root / "a" / "x.py", root / "link.py");      // a link to a file: taken
  fs::create_symlink(root / "a", root / "linked-folder");         // a link to a folder: not entered
  fs::create_symlink(root / "missing.py", root / "dangling.py");  // a broken link: left out

  std::vector<std::string> found, listed, errors;
  std::vector<std::string> config_folders;
  cli::WalkCallbacks cb;
  cb.skip = [&](const std::string& path) { return path.size() >= 6 && path.substr(path.size() - 6) == "skipme"; };
  cb.listed = [&](const std::string& folder, bool config_named) {
    listed.push_back(folder);
    if (config_named) config_folders.push_back(folder);
  };
  cb.file = [&](const std::string& path) { found.push_back(path); };
  cb.error = [&](const std::string& folder, const std::string& error) { errors.push_back(folder + ": " + error); };
  cli::walk_folder(root.string(), wanted_py, cb);

  std::vector<std::string> expected;
  for (const auto& f : files)
    if (f.rfind("skipme", 0) != 0) expected.push_back((root / f).string());
  expected.push_back((root / "link.py").string());
  std::sort(expected.begin(), expected.end());
  CHECK(found == expected);
  CHECK(errors.empty());
  CHECK(std::find(listed.begin(), listed.end(), (root / "skipme").string()) == listed.end());
  CHECK(std::find(listed.begin(), listed.end(), (root / "a" / "b").string()) != listed.end());
  CHECK(config_folders == std::vector<std::string>{(root / "a").string()});

  // A root given with a trailing '/' keeps it once, as fs::path's `/` would.
  found.clear();
  cli::walk_folder(root.string() + "/", wanted_py, cb);
  CHECK(found == expected);

  // A folder that cannot be listed is an error naming it; nothing is found in it.
  found.clear();
  cli::walk_folder((root / "nowhere").string(), wanted_py, cb);
  CHECK(found.empty());
  REQUIRE(errors.size() == 1);
  CHECK(errors[0] == (root / "nowhere").string() + ": No such file or directory");
}

TEST_CASE("a plain event log is recognised from the read that would take a plan's text", "[cli]") {
  if (planlint::test::corpus_missing()) return;
  TempDir dir;
  fs::path log = fs::path(PLANLINT_CORPUS_DIR) / "eventlogs/dr-elephant/test/resources/spark_event_logs/event_log_1";
  REQUIRE(fs::is_regular_file(log));
  // Named like a plan (a symlink, not a copy of the corpus): still diagnosed as the event log it is.
  fs::create_symlink(fs::absolute(log), dir.path / "job.txt");
  std::vector<cli::Input> inputs{{(dir.path / "job.txt").string(), false, {}, {}}, {log.string(), false, {}, {}}};
  std::vector<lint::FileResult> results;
  cli::lint_inputs(inputs, 1, nullptr, [&](std::size_t, lint::FileResult&& r) { results.push_back(std::move(r)); });
  REQUIRE(results.size() == 2);
  REQUIRE(results[0].diagnostics.size() == 1);
  CHECK(results[0].diagnostics[0].rule->name == "driver-bound");
  CHECK(results[1].diagnostics.size() == 1);
  CHECK(results[0].io_error.empty());
}

TEST_CASE("read_file_bounded stops at the head when asked, before the size limit applies", "[cli]") {
  TempDir dir;
  fs::path p = dir.path / "big.txt";
  std::string text(200000, 'x');
  text.replace(0, 5, "HEAD\n");
  write(p, text);
  auto is_head = [](std::string_view head) { return head.rfind("HEAD", 0) == 0; };
  auto never = [](std::string_view) { return false; };

  util::ReadResult whole = util::read_file_bounded(p.string());
  CHECK(whole.error.empty());
  CHECK(!whole.stopped);
  CHECK(whole.text == text);

  util::ReadResult probed = util::read_file_bounded(p.string(), util::kMaxInputBytes, never);
  CHECK(!probed.stopped);
  CHECK(probed.text == text);

  util::ReadResult head = util::read_file_bounded(p.string(), util::kMaxInputBytes, is_head);
  CHECK(head.stopped);
  CHECK(head.error.empty());
  CHECK(!head.text.empty());
  CHECK(head.text.size() <= 65536);
  CHECK(text.compare(0, head.text.size(), head.text) == 0);

  // Past the limit: the head is still looked at, and only a file that is not stopped is refused.
  util::ReadResult small_limit = util::read_file_bounded(p.string(), 1024, is_head);
  CHECK(small_limit.stopped);
  CHECK(small_limit.error.empty());
  util::ReadResult refused = util::read_file_bounded(p.string(), 1024, never);
  CHECK(!refused.stopped);
  CHECK(refused.error.find("larger than") == 0);
  CHECK(refused.text.empty());
  CHECK(util::read_file_bounded(p.string(), 1024).error.find("larger than") == 0);

  // An empty file is never shown to the probe.
  write(dir.path / "empty.txt", "");
  bool called = false;
  util::ReadResult empty = util::read_file_bounded((dir.path / "empty.txt").string(), util::kMaxInputBytes,
                                                   [&](std::string_view) { return called = true; });
  CHECK(!called);
  CHECK(empty.text.empty());
  CHECK(empty.error.empty());
}
