// EventLogContext: reporting a diagnosis at a stage (and at its call site), and the formatting the
// diagnoses' messages share.
#include "lint/eventlog_context.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>

namespace planlint::lint {

int EventLogContext::cores() const { return std::max(1, app_.max_cores()); }

const std::string& EventLogContext::plan_of(const eventlog::Stage& s) const {
  static const std::string kNone;
  auto it = app_.sql.find(s.sql_execution);
  return it == app_.sql.end() ? kNone : it->second.plan;
}

EventFinding& EventLogContext::report_stage(const eventlog::Stage& s, std::string message, std::int64_t explained_ms,
                                            std::string fix) {
  EventFinding& f = report_app(s.line, std::move(message), explained_ms, std::move(fix));
  f.stage = s.id;
  f.stage_ms = s.duration_ms();
  // A diagnosis cannot explain more of a stage than the stage took.
  if (f.stage_ms > 0) f.explained_ms = std::min(f.explained_ms, f.stage_ms);
  if (auto site = parse_call_site(s.name)) {
    Location at{site->file, site->line, 1, site->line, 1};
    f.diagnostic.related.push_back({std::move(at), "stage " + std::to_string(s.id) + " was called from here"});
  }
  return f;
}

EventFinding& EventLogContext::report_app(std::uint32_t line, std::string message, std::int64_t explained_ms,
                                          std::string fix) {
  EventFinding f;
  f.diagnostic.rule = rule_;
  f.diagnostic.severity = rule_->severity;
  f.diagnostic.location = Location{app_.path, line, 1, line, 1};
  f.diagnostic.message = std::move(message);
  f.explained_ms = std::max<std::int64_t>(0, explained_ms);
  f.stage_ms = app_.duration_ms();
  f.fix = std::move(fix);
  out_.push_back(std::move(f));
  return out_.back();
}

std::optional<CallSite> parse_call_site(const std::string& stage_name) {
  auto at = stage_name.rfind(" at ");
  if (at == std::string::npos) return std::nullopt;
  std::string_view where = std::string_view(stage_name).substr(at + 4);
  auto colon = where.rfind(':');
  if (colon == std::string_view::npos || colon == 0) return std::nullopt;
  std::uint32_t line = 0;
  auto [p, e] = std::from_chars(where.data() + colon + 1, where.data() + where.size(), line);
  if (e != std::errc() || line == 0) return std::nullopt;  // "NativeMethodAccessorImpl.java:0": py4j, not user code
  std::string file(where.substr(0, colon));
  static constexpr std::string_view kSpark[] = {"NativeMethodAccessorImpl", "Dataset.scala",   "DataFrameReader.scala",
                                                "DataFrameWriter.scala",    "SparkPlan.scala", "Shims.scala"};
  if (std::any_of(std::begin(kSpark), std::end(kSpark),
                  [&](std::string_view s) { return file.find(s) != std::string::npos; }))
    return std::nullopt;
  return CallSite{std::move(file), line};
}

std::string counted(std::uint64_t n, std::string_view one, std::string_view many) {
  if (n == 1) return fmt::format("1 {}", one);
  return many.empty() ? fmt::format("{} {}s", n, one) : fmt::format("{} {}", n, many);
}

std::string format_ms(std::int64_t ms) {
  if (ms < 1000) return fmt::format("{} ms", ms);
  if (ms < 60'000) return fmt::format("{:.1f} s", static_cast<double>(ms) / 1000.0);
  if (ms < 3'600'000) return fmt::format("{} min {:02} s", ms / 60'000, (ms / 1000) % 60);
  return fmt::format("{} h {:02} min", ms / 3'600'000, (ms / 60'000) % 60);
}

std::string format_bytes(std::uint64_t bytes) {
  static constexpr const char* kUnits[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
  auto v = static_cast<double>(bytes);
  int u = 0;
  while (v >= 1024.0 && u < 5) {
    v /= 1024.0;
    ++u;
  }
  return u == 0 ? fmt::format("{} B", bytes) : fmt::format("{:.1f} {}", v, kUnits[u]);
}

}  // namespace planlint::lint
