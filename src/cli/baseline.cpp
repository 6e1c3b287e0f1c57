// Baselines: findings recorded once (--write-baseline) and left out of later reports (--baseline).
#include "cli/baseline.hpp"

#include <filesystem>
#include <fstream>
#include <sstream>

#include "cli/output.hpp"
#include "lint/rule.hpp"
#include "util/files.hpp"

namespace planlint::cli {
namespace fs = std::filesystem;

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

}  // namespace planlint::cli
