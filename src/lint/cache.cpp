// Results cache entries: CBOR files under DIR/xx/<128-bit key>, written atomically.
#include "lint/cache.hpp"

#include <unistd.h>
#include <xxhash.h>

#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <set>

namespace planlint::lint {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

constexpr int kFormat = 3;  // bump when the entry layout changes

// A location in the entry's own file keeps its path out (null): most locations are, and the path
// would otherwise be stored once per finding, related location and edit.
json location_to(const Location& l, const std::string& file) {
  return json::array({l.path == file ? json(nullptr) : json(l.path), l.line, l.column, l.end_line, l.end_column, l.cell,
                      l.cell_line, l.cell_column});
}

Location location_from(const json& j, const std::string& file) {
  Location l;
  l.path = j.at(0).is_null() ? file : j.at(0).get<std::string>();
  l.line = j.at(1).get<std::uint32_t>();
  l.column = j.at(2).get<std::uint32_t>();
  l.end_line = j.at(3).get<std::uint32_t>();
  l.end_column = j.at(4).get<std::uint32_t>();
  l.cell = j.at(5).get<int>();
  l.cell_line = j.at(6).get<std::uint32_t>();
  l.cell_column = j.at(7).get<std::uint32_t>();
  return l;
}

json result_to(const FileResult& r) {
  json diags = json::array();
  for (const auto& d : r.diagnostics) {
    json related = json::array();
    for (const auto& rl : d.related) related.push_back({location_to(rl.location, r.path), rl.message});
    json fix = nullptr;
    if (d.fix) {
      json edits = json::array();
      for (const auto& e : d.fix->edits)
        edits.push_back({location_to(e.range, r.path), e.replacement, e.cell, e.start_byte, e.end_byte});
      fix = {d.fix->title, static_cast<int>(d.fix->applicability), edits, d.fix->suggestion};
    }
    diags.push_back({d.rule->id, static_cast<int>(d.severity), location_to(d.location, r.path), d.message, related, fix,
                     d.fingerprint});
  }
  // Only the lines the reporters quote (findings, related locations, fix ranges) are kept: an entry
  // stays a fraction of its file, and a warm run decodes little.
  auto [file_lines, cell_lines] = quoted_lines(r);
  json lines = json::array(), cells = json::array();
  for (auto n : file_lines)
    if (n >= 1 && n <= r.lines.size()) lines.push_back({n, r.lines[n - 1]});
  for (const auto& [c, n] : cell_lines)
    if (c >= 1 && static_cast<std::size_t>(c) <= r.cell_lines.size() && n >= 1 &&
        n <= r.cell_lines[static_cast<std::size_t>(c - 1)].size())
      cells.push_back({c, n, r.cell_lines[static_cast<std::size_t>(c - 1)][n - 1]});
  json cell_sizes = json::array();
  for (const auto& c : r.cell_lines) cell_sizes.push_back(c.size());
  return {{"path", r.path},           {"line_count", r.lines.size()}, {"lines", lines},
          {"cell_sizes", cell_sizes}, {"cell_lines", cells},          {"diagnostics", diags}};
}

FileResult result_from(const json& j) {
  FileResult r;
  r.path = j.at("path").get<std::string>();
  r.lines.resize(j.at("line_count").get<std::size_t>());
  for (const auto& l : j.at("lines")) r.lines.at(l.at(0).get<std::size_t>() - 1) = l.at(1).get<std::string>();
  for (const auto& n : j.at("cell_sizes")) r.cell_lines.emplace_back(n.get<std::size_t>());
  for (const auto& l : j.at("cell_lines"))
    r.cell_lines.at(l.at(0).get<std::size_t>() - 1).at(l.at(1).get<std::size_t>() - 1) = l.at(2).get<std::string>();
  for (const auto& x : j.at("diagnostics")) {
    Diagnostic d;
    d.rule = find_rule(x.at(0).get<std::string>());
    if (d.rule == nullptr) throw std::runtime_error("unknown rule in cache entry");
    d.severity = static_cast<Severity>(x.at(1).get<int>());
    d.location = location_from(x.at(2), r.path);
    d.message = x.at(3).get<std::string>();
    for (const auto& rl : x.at(4)) d.related.push_back({location_from(rl.at(0), r.path), rl.at(1).get<std::string>()});
    if (const json& f = x.at(5); !f.is_null()) {
      Fix fix;
      fix.title = f.at(0).get<std::string>();
      fix.applicability = static_cast<Applicability>(f.at(1).get<int>());
      for (const auto& e : f.at(2))
        fix.edits.push_back({location_from(e.at(0), r.path), e.at(1).get<std::string>(), e.at(2).get<int>(),
                             e.at(3).get<std::uint32_t>(), e.at(4).get<std::uint32_t>()});
      fix.suggestion = f.at(3).get<std::string>();
      d.fix = std::move(fix);
    }
    d.fingerprint = x.at(6).get<std::string>();
    r.diagnostics.push_back(std::move(d));
  }
  return r;
}

std::string joined(const std::vector<std::string>& v) {
  std::string out;
  for (const auto& s : v) out += s + '\x1f';
  return out;
}

}  // namespace

std::string options_fingerprint(const LintOptions& o) {
  std::string t = joined(o.select) + '\x1e' + joined(o.extend_select) + '\x1e' + joined(o.ignore) + '\x1e';
  t +=
      std::to_string(static_cast<int>(o.min_impact)) + '\x1e' + fmt::format("{}", o.broadcast_threshold_bytes) + '\x1e';
  t += joined(o.small_tables) + '\x1e';
  for (auto n : o.tolerated_shuffle_partitions) t += std::to_string(n) + ',';
  t += '\x1e' + o.target_spark_version + '\x1e' + o.source_root;
  return t;
}

ResultCache::ResultCache(fs::path dir, std::string tool_version)
    : dir_(std::move(dir)), version_(std::move(tool_version)) {}

fs::path ResultCache::entry(const std::string& path, std::string_view content, const LintOptions& options) const {
  XXH3_state_t* state = XXH3_createState();
  XXH3_128bits_reset(state);
  std::string head = fmt::format("planlint {} cache {}", version_, kFormat);
  std::string opts = options_fingerprint(options);
  for (std::string_view part : {std::string_view(head), std::string_view(path), std::string_view(opts), content}) {
    std::uint64_t n = part.size();
    XXH3_128bits_update(state, &n, sizeof n);  // lengths keep ("ab", "c") and ("a", "bc") apart
    XXH3_128bits_update(state, part.data(), part.size());
  }
  XXH128_hash_t h = XXH3_128bits_digest(state);
  XXH3_freeState(state);
  std::string hex = fmt::format("{:016x}{:016x}", h.high64, h.low64);
  return dir_ / hex.substr(0, 2) / hex;
}

std::optional<FileResult> ResultCache::load(const fs::path& entry, const std::string& path) const {
  std::ifstream in(entry, std::ios::binary);
  if (!in) {
    ++misses_;
    return std::nullopt;
  }
  std::vector<std::uint8_t> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  try {
    json j = json::from_cbor(bytes);
    if (j.at("format").get<int>() != kFormat || j.at("path").get<std::string>() != path)
      throw std::runtime_error("not this entry");
    FileResult r = result_from(j.at("result"));
    ++hits_;
    return r;
  } catch (const std::exception&) {  // a truncated or foreign file: linted again, and rewritten
    ++misses_;
    return std::nullopt;
  }
}

void ResultCache::store(const fs::path& target, const std::string& path, const FileResult& result) const {
  if (!result.io_error.empty()) return;
  std::error_code ec;
  fs::create_directories(target.parent_path(), ec);
  if (ec) return;
  if (!fs::exists(dir_ / "CACHEDIR.TAG", ec)) {
    std::ofstream(dir_ / "CACHEDIR.TAG") << "Signature: 8a477f597d28d172789f06886806bc55\n"
                                            "# planlint's results cache; safe to delete.\n";
    std::ofstream(dir_ / ".gitignore") << "*\n";
  }
  json j{{"format", kFormat}, {"path", path}, {"result", result_to(result)}};
  std::vector<std::uint8_t> bytes = json::to_cbor(j);
  // Unique per process and call: concurrent runs never write the same temporary file.
  fs::path tmp = target;
  tmp += fmt::format(".{}.{}.tmp", getpid(), serial_++);
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
    out.flush();
    if (!out) {  // a full disk or a read-only folder: the run goes on without this entry
      out.close();
      fs::remove(tmp, ec);
      return;
    }
  }
  fs::rename(tmp, target, ec);
  if (ec) fs::remove(tmp, ec);
}

}  // namespace planlint::lint
