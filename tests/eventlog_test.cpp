// The event-log frontend: Spark's codecs and framings, rolling logs, cut and broken logs, and the
// real logs of ../shared/corpus/eventlogs.
#include <zlib.h>
#include <zstd.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "eventlog/codec.hpp"
#include "eventlog/reader.hpp"
#include "eventlog/whatif.hpp"
#include "test_util.hpp"

namespace fs = std::filesystem;
using namespace planlint::eventlog;

namespace {

std::string synthetic_log(int tasks = 300) {
  std::string s =
      R"({"Event":"SparkListenerLogStart","Spark Version":"3.5.1"})"
      "\n"
      R"({"Event":"SparkListenerApplicationStart","App Name":"t","App ID":"app-1","Timestamp":1000,"User":"u"})"
      "\n"
      R"({"Event":"SparkListenerStageSubmitted","Stage Info":{"Stage ID":4,"Stage Attempt ID":0,"Stage Name":"count at job.py:7","Number of Tasks":300,"Submission Time":1000}})"
      "\n";
  for (int i = 0; i < tasks; ++i) {
    s +=
        R"({"Event":"SparkListenerTaskEnd","Stage ID":4,"Task End Reason":{"Reason":"Success"},"Task Info":{"Launch Time":)" +
        std::to_string(1000 + i) + R"(,"Finish Time":)" + std::to_string(1100 + 2 * i) +
        R"(,"Failed":false,"Killed":false},"Task Metrics":{"Executor Run Time":50,"JVM GC Time":3,"Disk Bytes Spilled":7,"Shuffle Read Metrics":{"Remote Bytes Read":10,"Local Bytes Read":5},"Input Metrics":{"Bytes Read":100,"Records Read":1}}})"
        "\n";
  }
  s +=
      R"({"Event":"SparkListenerStageCompleted","Stage Info":{"Stage ID":4,"Stage Attempt ID":0,"Stage Name":"count at job.py:7","Number of Tasks":300,"Submission Time":1000,"Completion Time":3000}})"
      "\n"
      R"({"Event":"SparkListenerApplicationEnd","Timestamp":4000})"
      "\n";
  return s;
}

fs::path write_file(const std::string& name, const std::string& bytes) {
  fs::path dir = fs::temp_directory_path() / "planlint-eventlog-test";
  fs::create_directories(dir);
  fs::path p = dir / name;
  std::ofstream(p, std::ios::binary) << bytes;
  return p;
}

void check_synthetic(const Application& app) {
  REQUIRE(app.stages.count(4) == 1);
  const Stage& s = app.stages.at(4);
  CHECK(s.m.tasks == 300);
  CHECK(s.m.input_bytes == 30000);
  CHECK(s.m.shuffle_read_bytes == 4500);
  CHECK(s.m.disk_spill == 2100);
  CHECK(s.m.gc_ms == 900);
  CHECK(s.q.min == 100);
  CHECK(s.q.max == 399);
  CHECK(s.q.median == 250);
  CHECK(s.duration_ms() == 2000);
  CHECK(app.spark_version == "3.5.1");
  CHECK(app.complete);
  CHECK(app.malformed_lines == 0);
}

std::string zstd_bytes(const std::string& s) {
  std::string out(ZSTD_compressBound(s.size()), '\0');
  out.resize(ZSTD_compress(out.data(), out.size(), s.data(), s.size(), 3));
  return out;
}

std::string gzip_bytes(const std::string& s) {
  z_stream z{};
  deflateInit2(&z, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY);
  std::string out(deflateBound(&z, s.size()) + 32, '\0');
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(s.data()));  // NOLINT
  z.avail_in = static_cast<uInt>(s.size());
  z.next_out = reinterpret_cast<Bytef*>(out.data());  // NOLINT
  z.avail_out = static_cast<uInt>(out.size());
  deflate(&z, Z_FINISH);
  out.resize(z.total_out);
  deflateEnd(&z);
  return out;
}

}  // namespace

TEST_CASE("codecs are chosen by suffix, .inprogress looked through", "[eventlog]") {
  CHECK(codec_for_path("app-1.lz4") == Codec::lz4);
  CHECK(codec_for_path("app-1.zstd.inprogress") == Codec::zstd);
  CHECK(codec_for_path("events_1_app.snappy") == Codec::snappy);
  CHECK(codec_for_path("app.lzf") == Codec::lzf);
  CHECK(codec_for_path("eventlog-2021-06-15--15-00.gz") == Codec::gzip);
  CHECK(codec_for_path("application_1_1") == Codec::none);
}

// lz4-java, snappy-java and compress-lzf framings are written here from their documented layouts
// (no Spark-written sample of them is in the corpus); zstd and gzip are the libraries' own formats.
TEST_CASE("every codec Spark writes reads to the same figures", "[eventlog]") {
  std::string log = synthetic_log();
  std::vector<std::pair<std::string, std::string>> files{
      {"plain", log},
      {"app.lz4", frame_lz4_block(log, 4096)},
      {"app.snappy", frame_snappy_java(log, 4096)},
      {"app.lzf", frame_lzf(log)},
      {"app.zstd", zstd_bytes(log)},
      {"app.gz", gzip_bytes(log)},
      {"app.lz4.inprogress", frame_lz4_block(log)},
      {"two-frames.zstd", zstd_bytes(log.substr(0, 1000)) + zstd_bytes(log.substr(1000))},
      {"two-streams.lz4", frame_lz4_block(log.substr(0, 5000)) + frame_lz4_block(log.substr(5000))},
  };
  for (const auto& [name, bytes] : files) {
    INFO(name);
    std::string err;
    Application app = read_event_log(write_file(name, bytes).string(), err);
    CHECK(err.empty());
    CHECK(app.problems.empty());
    check_synthetic(app);
  }
}

TEST_CASE("an lz4-java block written byte by byte is read", "[eventlog]") {
  std::string line = R"({"Event":"SparkListenerLogStart","Spark Version":"2.4.8"})"
                     "\n";
  std::string f = "LZ4Block";
  f += static_cast<char>(0x10);  // stored (RAW), level 0
  auto le = [&](std::uint32_t v) {
    for (int i = 0; i < 4; ++i) f += static_cast<char>((v >> (8 * i)) & 0xFF);
  };
  le(static_cast<std::uint32_t>(line.size()));
  le(static_cast<std::uint32_t>(line.size()));
  // The checksum of the real frame, as frame_lz4_block computes it (xxhash32, seed 0x9747b28c, 28 bits).
  std::string framed = frame_lz4_block(line);
  f += framed.substr(17, 4);
  f += line;
  f += framed.substr(framed.size() - 21);  // the empty end block
  std::string err;
  Application app = read_event_log(write_file("bytes.lz4", f).string(), err);
  CHECK(err.empty());
  CHECK(app.spark_version == "2.4.8");
  CHECK(app.problems.empty());
}

TEST_CASE("a cut or corrupt compressed log keeps what came before and says why", "[eventlog]") {
  std::string log = synthetic_log(5000);  // several blocks in every codec, so a cut lands after some
  auto half = [](const std::string& s) { return s.substr(0, s.size() / 2); };
  for (const auto& [name, bytes] : std::vector<std::pair<std::string, std::string>>{
           {"cut.lz4", half(frame_lz4_block(log, 4096))},
           {"cut.zstd", half(zstd_bytes(log))},
           {"cut.snappy", half(frame_snappy_java(log, 4096))},
           {"cut.lzf", half(frame_lzf(log))},
       }) {
    INFO(name);
    std::string err;
    Application app = read_event_log(write_file(name, bytes).string(), err);
    CHECK(err.empty());
    CHECK(app.spark_version == "3.5.1");
    CHECK_FALSE(app.problems.empty());
    bool says = false;
    for (const auto& p : app.problems) says = says || p.message.find("truncated") != std::string::npos;
    CHECK(says);
  }
  std::string bad = frame_lz4_block(log, 4096);
  bad[25] = static_cast<char>(bad[25] ^ 0x5A);  // inside the first block's data
  std::string err;
  Application app = read_event_log(write_file("corrupt.lz4", bad).string(), err);
  REQUIRE_FALSE(app.problems.empty());
  CHECK((app.problems.back().message.find("corrupt") != std::string::npos ||
         app.problems.back().message.find("checksum") != std::string::npos));
}

TEST_CASE("broken lines are counted with their line numbers, the rest is read", "[eventlog]") {
  std::string log = synthetic_log();
  auto at = log.find("\n", log.find("\n", log.find("\n") + 1) + 1);  // end of line 3
  log.insert(at + 1, "this is a driver log line\n");
  log.insert(log.size(), R"({"Event":"SparkListenerTaskEnd","Stage ID":4,"Task Info":{"Launch)");
  std::string err;
  Application app = read_event_log(write_file("broken", log).string(), err);
  CHECK(err.empty());
  CHECK(app.malformed_lines == 2);
  REQUIRE(app.problems.size() == 2);
  CHECK(app.problems[0].line == 4);
  CHECK(app.problems[1].message.find("cut short") != std::string::npos);
  CHECK(app.stages.at(4).m.tasks == 300);
}

TEST_CASE("a file without listener events is not an event log", "[eventlog]") {
  std::string err;
  read_event_log(write_file("notes.txt", "hello\nworld\n").string(), err);
  CHECK(err.find("not an event log") != std::string::npos);
  read_event_log(write_file("empty", "").string(), err);
  CHECK(err.find("empty") != std::string::npos);
  read_event_log("/nonexistent/planlint/app.zstd", err);
  CHECK_FALSE(err.empty());
}

namespace {
fs::path corpus() { return fs::path(PLANLINT_CORPUS_DIR) / "eventlogs"; }
}  // namespace

TEST_CASE("every real event log of the corpus is read", "[eventlog][corpus]") {
  if (planlint::test::corpus_missing()) return;
  REQUIRE(fs::exists(corpus()));  // ../shared is beside the repository in CI
  int logs = 0;
  for (const auto& e : fs::recursive_directory_iterator(corpus())) {
    std::string p = e.path().string();
    if (!e.is_regular_file() || e.path().extension() == ".md" || p.find("eventlog_v2_") != std::string::npos) continue;
    INFO(p);
    std::string err;
    Application app = read_event_log(p, err);
    ++logs;
    if (e.path().filename() == "driverlog") {
      CHECK(err.find("not an event log") != std::string::npos);
      continue;
    }
    CHECK(err.empty());
    CHECK(app.looks_like_event_log);
    if (e.path().filename() != "malformed_json_eventlog.zstd") CHECK(app.malformed_lines == 0);
  }
  CHECK(logs >= 75);
}

TEST_CASE("corpus logs: malformed line, failures, Photon, GPU, rolling logs", "[eventlog][corpus]") {
  if (planlint::test::corpus_missing()) return;
  REQUIRE(fs::exists(corpus()));  // ../shared is beside the repository in CI
  fs::path rapids = corpus() / "spark-rapids-tools/core/src/test/resources";
  std::string err;
  Application bad = read_event_log((rapids / "spark-events-profiling/malformed_json_eventlog.zstd").string(), err);
  CHECK(bad.malformed_lines == 1);
  REQUIRE_FALSE(bad.problems.empty());
  CHECK(bad.problems[0].line == 4);

  Application failed =
      read_event_log((rapids / "spark-events-profiling/tasks_executors_fail_compressed_eventlog.zstd").string(), err);
  std::uint64_t failed_tasks = 0;
  for (const auto& [id, s] : failed.stages) failed_tasks += s.m.failed_tasks;
  CHECK(failed_tasks > 0);
  CHECK(failed.executors.size() > 2);

  CHECK(read_event_log((rapids / "spark-events-qualification/nds_q88_photon_db_13_3.zstd").string(), err).engine() ==
        "photon");
  CHECK(read_event_log((rapids / "spark-events-profiling/gpu_oom_eventlog.zstd").string(), err).engine() == "rapids");
  CHECK(read_event_log((rapids / "spark-events-qualification/nds_q72_dataproc_2_2.zstd").string(), err).engine() ==
        "spark");

  fs::path rolling = rapids / "spark-events-qualification/eventlog_v2_local-1623876083964";
  CHECK(rolling_log_files(rolling.string()).size() == 2);
  Application r = read_event_log(rolling.string(), err);
  CHECK(err.empty());
  CHECK(r.complete);
  CHECK(r.sql.size() >= 1);
}

TEST_CASE("task-duration quantiles at Spark's ranks, for any quantile (its custom-quantile answer)",
          "[eventlog][corpus]") {
  if (planlint::test::corpus_missing()) return;
  // HistoryServerSuite "stage task summary w/ custom quantiles": stages/0/0/taskSummary?quantiles=0.01,0.5,0.99
  // of local-1430917381534 answers duration [21, 40, 435].
  std::string err;
  Application app = read_event_log((corpus() / "apache-spark/spark-events/local-1430917381534").string(), err);
  REQUIRE(err.empty());
  REQUIRE(app.stages.count(0) == 1);
  std::vector<std::uint64_t> d(app.stages.at(0).durations.begin(), app.stages.at(0).durations.end());
  std::sort(d.begin(), d.end());
  CHECK(quantile(d, 0.01) == 21);
  CHECK(quantile(d, 0.5) == 40);
  CHECK(quantile(d, 0.99) == 435);
}

TEST_CASE("quantile ranks: min(floor(q * n), n - 1)", "[eventlog]") {
  std::vector<std::uint64_t> four{10, 20, 30, 40};
  CHECK(quantile(four, 0.0) == 10);
  CHECK(quantile(four, 0.25) == 20);  // floor(1.0) = 1
  CHECK(quantile(four, 0.75) == 40);  // floor(3.0) = 3: the 4-task stage's p75 is its slowest task, as in the UI
  CHECK(quantile(four, 1.0) == 40);
  CHECK(quantile({}, 0.5) == 0);
}

TEST_CASE("a stage Spark 4 names after a JDK frame is named after the first user frame", "[eventlog]") {
  std::string details =
      "java.util.concurrent.CompletableFuture$AsyncSupply.run(CompletableFuture.java:1768)\\n"
      "org.apache.spark.sql.execution.SQLExecution$.withThreadLocalCaptured(SQLExecution.scala:250)\\n"
      "scala.concurrent.Future$.apply(Future.scala:687)\\n"
      "com.acme.jobs.DailyRevenue$.main(DailyRevenue.scala:42)\\n"
      "java.base/jdk.internal.reflect.DirectMethodHandleAccessor.invoke(DirectMethodHandleAccessor.java:103)";
  std::string log =
      R"({"Event":"SparkListenerApplicationStart","App Name":"t","App ID":"app-4","Timestamp":1000,"User":"u"})"
      "\n"
      R"({"Event":"SparkListenerStageSubmitted","Stage Info":{"Stage ID":1,"Stage Attempt ID":0,"Stage Name":"$anonfun$withThreadLocalCaptured$2 at CompletableFuture.java:1768","Number of Tasks":1,"Details":")" +
      details +
      R"(","Submission Time":1000}})"
      "\n"
      R"x({"Event":"SparkListenerStageSubmitted","Stage Info":{"Stage ID":2,"Stage Attempt ID":0,"Stage Name":"collect at /jobs/etl.py:7","Number of Tasks":1,"Details":"org.apache.spark.rdd.RDD.collect(RDD.scala:1029)","Submission Time":1000}})x"
      "\n"
      R"({"Event":"SparkListenerApplicationEnd","Timestamp":4000})"
      "\n";
  std::string err;
  Application app = read_event_log(write_file("spark4.log", log).string(), err);
  REQUIRE(err.empty());
  CHECK(app.stages.at(1).name == "main at DailyRevenue.scala:42");
  CHECK(app.stages.at(1).spark_name == "$anonfun$withThreadLocalCaptured$2 at CompletableFuture.java:1768");
  CHECK(app.stages.at(2).name == "collect at /jobs/etl.py:7");  // a user frame already: kept
  CHECK(app.stages.at(2).spark_name.empty());
}

TEST_CASE("task records: executor, host, speculation, reasons; a commit denied is a kill", "[eventlog]") {
  auto task = [](int id, const std::string& reason, const std::string& exec, bool speculative, int ms) {
    return R"({"Event":"SparkListenerTaskEnd","Stage ID":3,"Stage Attempt ID":0,"Task End Reason":)" + reason +
           R"(,"Task Info":{"Task ID":)" + std::to_string(id) + R"(,"Launch Time":1000,"Finish Time":)" +
           std::to_string(1000 + ms) + R"(,"Executor ID":")" + exec + R"(","Host":"host-)" + exec +
           R"(","Speculative":)" + (speculative ? "true" : "false") +
           R"(},"Task Metrics":{"Executor Run Time":90,"Executor CPU Time":5000000,"Input Metrics":{"Bytes Read":64,"Records Read":2},"Shuffle Read Metrics":{"Remote Bytes Read":10,"Local Bytes Read":6,"Total Records Read":3}}})"
           "\n";
  };
  std::string log =
      task(1, R"({"Reason":"Success"})", "1", false, 100) +
      task(
          2,
          R"({"Reason":"ExceptionFailure","Class Name":"org.apache.spark.api.python.PythonException","Description":"Traceback (most recent call last):\n  File \"etl.py\", line 3, in f\n    return 1 / x\nZeroDivisionError: division by zero\n"})",
          "2", false, 50) +
      task(3, R"({"Reason":"TaskKilled","Kill Reason":"another attempt succeeded"})", "1", true, 40) +
      task(4, R"({"Reason":"TaskCommitDenied","Job ID":1,"Partition ID":0,"Attempt Number":1})", "2", false, 30);
  std::string err;
  Application app = read_event_log(write_file("tasks.log", log).string(), err);
  REQUIRE(err.empty());
  const Stage& s = app.stages.at(3);
  REQUIRE(s.tasks.size() == 4);
  CHECK(s.m.failed_tasks == 1);
  CHECK(s.m.killed_tasks == 2);  // the speculative copy and the denied commit
  CHECK(s.tasks[0].input_records == 2);
  CHECK(s.tasks[0].shuffle_bytes == 16);
  CHECK(s.tasks[0].shuffle_records == 3);
  CHECK(s.tasks[0].cpu_ms == 5);
  CHECK(s.tasks[2].speculative);
  CHECK(app.executor_hosts[s.tasks[1].executor] == "host-2");
  auto groups = app.failures(s);
  REQUIRE(groups.size() == 3);
  bool python = false, race = false;
  for (const auto& g : groups) {
    // A Python worker's error is its traceback's last line, after the exception class.
    python = python || g.reason == "org.apache.spark.api.python.PythonException: ZeroDivisionError: division by zero";
    race = race || (g.reason == "TaskKilled: another attempt succeeded" && g.speculative == 1);
  }
  CHECK(python);
  CHECK(race);
}

TEST_CASE("what-if: a chain of stages on twice the cores runs in half the time (hand-computed)", "[eventlog]") {
  // One executor of 4 cores; one job of three chained stages, each of 8 tasks of 10 s: two waves,
  // 20 s a stage, 60 s in all. On 2 executors (8 cores) each stage is one wave: 30 s. The critical
  // path (unlimited cores) is 30 s too.
  std::string log =
      R"({"Event":"SparkListenerApplicationStart","App Name":"chain","App ID":"app-c","Timestamp":1000000,"User":"u"})"
      "\n"
      R"({"Event":"SparkListenerExecutorAdded","Timestamp":1000000,"Executor ID":"1","Executor Info":{"Host":"h1","Total Cores":4}})"
      "\n"
      R"({"Event":"SparkListenerJobStart","Job ID":0,"Submission Time":1000000,"Stage IDs":[0,1,2],"Properties":{}})"
      "\n";
  std::int64_t t = 1000000;
  int task = 0;
  for (int s = 0; s < 3; ++s) {
    std::string parents = s == 0 ? "[]" : "[" + std::to_string(s - 1) + "]";
    log += R"({"Event":"SparkListenerStageSubmitted","Stage Info":{"Stage ID":)" + std::to_string(s) +
           R"(,"Stage Attempt ID":0,"Stage Name":"count at job.py:)" + std::to_string(10 + s) +
           R"(","Number of Tasks":8,"Parent IDs":)" + parents + R"(,"Submission Time":)" + std::to_string(t) + "}}\n";
    for (int i = 0; i < 8; ++i) {
      std::int64_t launch = t + (i / 4) * 10000;
      log += R"({"Event":"SparkListenerTaskEnd","Stage ID":)" + std::to_string(s) +
             R"(,"Stage Attempt ID":0,"Task End Reason":{"Reason":"Success"},"Task Info":{"Task ID":)" +
             std::to_string(task++) + R"(,"Launch Time":)" + std::to_string(launch) + R"(,"Finish Time":)" +
             std::to_string(launch + 10000) +
             R"(,"Executor ID":"1","Host":"h1"},"Task Metrics":{"Executor Run Time":10000}})" + "\n";
    }
    t += 20000;
    log += R"({"Event":"SparkListenerStageCompleted","Stage Info":{"Stage ID":)" + std::to_string(s) +
           R"(,"Stage Attempt ID":0,"Stage Name":"count","Number of Tasks":8,"Submission Time":)" +
           std::to_string(t - 20000) + R"(,"Completion Time":)" + std::to_string(t) + "}}\n";
  }
  log += R"({"Event":"SparkListenerJobEnd","Job ID":0,"Completion Time":)" + std::to_string(t) +
         R"(,"Job Result":{"Result":"JobSucceeded"}})"
         "\n"
         R"({"Event":"SparkListenerApplicationEnd","Timestamp":)" +
         std::to_string(t) + "}\n";
  std::string err;
  Application app = read_event_log(write_file("chain.log", log).string(), err);
  REQUIRE(err.empty());
  WhatIf w = what_if(app, {2});
  REQUIRE(w.usable);
  CHECK(w.measured_ms == 60000);
  CHECK(w.simulated_ms == 60000);
  CHECK(w.critical_path_ms == 30000);
  REQUIRE(w.rows.size() == 2);
  CHECK(w.rows[0].executors == 1);
  CHECK(w.rows[0].as_run);
  CHECK(w.rows[1].executors == 2);
  CHECK(w.rows[1].slots == 8);
  CHECK(w.rows[1].wall_ms == 30000);
}

TEST_CASE("a task without a launch time has no duration; Spark's own operations keep their stage name", "[eventlog]") {
  std::string log =
      R"x({"Event":"SparkListenerStageSubmitted","Stage Info":{"Stage ID":5,"Stage Attempt ID":0,"Stage Name":"treeAggregate at GradientDescent.scala:189","Number of Tasks":2,"Details":"org.apache.spark.mllib.optimization.GradientDescent$.runMiniBatchSGD(GradientDescent.scala:189)\ncom.acme.Train.main(Train.java:87)","Submission Time":1000}})x"
      "\n"
      R"({"Event":"SparkListenerTaskEnd","Stage ID":5,"Task End Reason":{"Reason":"Success"},"Task Info":{"Finish Time":5000,"Executor ID":"1","Host":"h"}})"
      "\n"
      R"({"Event":"SparkListenerTaskEnd","Stage ID":5,"Task End Reason":{"Reason":"Success"},"Task Info":{"Launch Time":1000,"Finish Time":1400,"Executor ID":"1","Host":"h"}})"
      "\n";
  std::string err;
  Application app = read_event_log(write_file("nolaunch.log", log).string(), err);
  REQUIRE(err.empty());
  const Stage& s = app.stages.at(5);
  CHECK(s.name == "treeAggregate at GradientDescent.scala:189");
  CHECK(s.spark_name.empty());
  REQUIRE(s.tasks.size() == 2);
  CHECK(s.tasks[0].duration == 0);
  CHECK(s.durations == std::vector<std::uint32_t>{400});
  CHECK(s.q.max == 400);
}
