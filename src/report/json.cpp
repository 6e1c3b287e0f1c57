// Machine output with nlohmann-json: planlint's versioned JSON schema and SARIF 2.1.0.
#include <filesystem>
#include <mutex>
#include <nlohmann/json.hpp>

#include "lint/rule.hpp"
#include "report/report.hpp"

namespace planlint::report {
using namespace planlint::lint;  // findings, results and rule metadata: what a reporter prints
namespace {

using nlohmann::json;
using ordered = nlohmann::ordered_json;

ordered location_json(const Location& l) {
  ordered j{
      {"file", l.path}, {"line", l.line}, {"column", l.column}, {"end_line", l.end_line}, {"end_column", l.end_column}};
  if (l.cell > 0) {
    j["cell"] = l.cell;
    j["cell_line"] = l.cell_line;
    j["cell_column"] = l.cell_column;
  }
  return j;
}

ordered fix_json(const Fix& f) {
  ordered edits = ordered::array();
  for (const auto& e : f.edits) {
    ordered ej = location_json(e.range);
    ej["content"] = e.replacement;
    edits.push_back(ej);
  }
  return ordered{{"title", f.title},
                 {"applicability", to_string(f.applicability)},
                 {"suggestion", f.suggestion},
                 {"edits", edits}};
}

// SARIF columns count Unicode code points; planlint's are bytes.
std::uint32_t code_point_column(const FileResult& r, std::uint32_t line, std::uint32_t byte_column) {
  if (line == 0 || line > r.lines.size() || byte_column == 0) return byte_column;
  const std::string& text = r.lines[line - 1];
  std::uint32_t col = 1;
  for (std::size_t i = 0; i + 1 < byte_column && i < text.size(); ++i)
    if ((static_cast<unsigned char>(text[i]) & 0xC0) != 0x80) ++col;
  if (byte_column > text.size() + 1) col += byte_column - static_cast<std::uint32_t>(text.size()) - 1;
  return col;
}

std::string percent_encode(std::string_view path) {
  static constexpr char hex[] = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : path) {
    if (std::isalnum(c) || c == '/' || c == '-' || c == '_' || c == '.' || c == '~') {
      out += static_cast<char>(c);
    } else {
      out += '%';
      out += hex[c >> 4];
      out += hex[c & 15];
    }
  }
  return out;
}

// A path relative to the working directory, as SARIF wants under %SRCROOT%; empty when outside it.
std::string relative_uri(const std::string& path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::path abs = fs::weakly_canonical(fs::absolute(path, ec), ec);
  fs::path cwd = fs::current_path(ec);
  fs::path rel = abs.lexically_relative(cwd);
  if (rel.empty() || rel.native().rfind("..", 0) == 0) return {};
  return percent_encode(rel.generic_string());
}

ordered artifact_location(const std::string& path) {
  // Resolving a path is system calls: the findings of one file ask for the same one many times.
  thread_local std::string last_path;
  thread_local ordered last;
  if (!last.is_null() && path == last_path) return last;
  std::string rel = relative_uri(path);
  if (!rel.empty()) {
    last = {{"uri", rel}, {"uriBaseId", "%SRCROOT%"}};
  } else {
    std::error_code ec;
    last = {{"uri", "file://" + percent_encode(std::filesystem::absolute(path, ec).generic_string())}};
  }
  last_path = path;
  return last;
}

ordered physical_location(const FileResult& r, const Location& l) {
  ordered artifact = artifact_location(l.path);
  ordered region{{"startLine", l.line}, {"startColumn", code_point_column(r, l.line, l.column)}};
  if (l.end_line != 0) {
    region["endLine"] = l.end_line;
    region["endColumn"] = code_point_column(r, l.end_line, l.end_column);
  }
  return ordered{{"artifactLocation", artifact}, {"region", region}};
}

std::string_view sarif_level(Severity s) {
  switch (s) {
    case Severity::error:
      return "error";
    case Severity::warning:
      return "warning";
    case Severity::info:
      return "note";
  }
  return "warning";
}

// First paragraph under "## What it does".
std::string what_it_does(std::string_view doc) {
  auto start = doc.find("## What it does\n");
  if (start == std::string_view::npos) return std::string(doc.substr(0, doc.find("\n\n")));
  start += 16;
  auto end = doc.find("\n\n", start);
  std::string text(doc.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start));
  for (char& c : text)
    if (c == '\n') c = ' ';
  return text;
}

}  // namespace

namespace {

constexpr auto kReplace = nlohmann::json::error_handler_t::replace;

// `j` as dump(2) prints it nested `indent` spaces deep (JSON strings hold no raw newlines), so a
// document streamed piece by piece is byte for byte what one dump of the whole would be.
void append_nested(std::string& out, const ordered& j, int indent) {
  std::string text = j.dump(2, ' ', false, kReplace);
  out.reserve(out.size() + text.size() + text.size() / 8);
  std::size_t from = 0;
  for (std::size_t nl = text.find('\n'); nl != std::string::npos; nl = text.find('\n', from)) {
    out.append(text, from, nl + 1 - from);
    out.append(static_cast<std::size_t>(indent), ' ');
    from = nl + 1;
  }
  out.append(text, from, std::string::npos);
}

// Items of an array nested `indent` spaces deep, written one at a time.
class StreamedArray {
 public:
  explicit StreamedArray(int indent) : indent_(indent) {}
  void add(std::string& out, const ordered& item) {
    out += count_++ == 0 ? "\n" : ",\n";
    out.append(static_cast<std::size_t>(indent_) + 2, ' ');
    append_nested(out, item, indent_ + 2);
  }
  void close(std::string& out) const {
    if (count_ > 0) {
      out += '\n';
      out.append(static_cast<std::size_t>(indent_), ' ');
    }
    out += ']';
  }

 private:
  int indent_;
  std::size_t count_ = 0;
};

ordered diagnostic_json(const Diagnostic& d) {
  ordered j = location_json(d.location);
  j["rule"] = {{"id", d.rule->id}, {"name", d.rule->name}};
  j["severity"] = to_string(d.severity);
  j["impact"] = to_string(d.rule->impact);
  j["fails_run"] = d.fails;
  j["message"] = d.message;
  ordered rel = ordered::array();
  for (const auto& rl : d.related) {
    ordered x = location_json(rl.location);
    x["message"] = rl.message;
    rel.push_back(x);
  }
  j["related"] = rel;
  j["fix"] = d.fix ? fix_json(*d.fix) : ordered(nullptr);
  j["fingerprint"] = d.fingerprint;
  return j;
}

class JsonReporter final : public Reporter {
 public:
  explicit JsonReporter(const ReportOptions& o) : version_(o.tool_version) {}
  void begin(std::string& out) override {
    out += "{\n  \"version\": " + std::to_string(kJsonSchemaVersion) + ",\n  \"tool\": ";
    append_nested(out, ordered{{"name", "planlint"}, {"version", version_}}, 2);
    out += ",\n  \"diagnostics\": [";
  }
  void file(const FileResult& r, std::string& out) override {
    if (!r.io_error.empty()) errors_.push_back({{"file", r.path}, {"message", r.io_error}});
    for (const auto& d : r.diagnostics) {
      diagnostics_.add(out, diagnostic_json(d));
      maybe_flush(out);
    }
  }
  void end(std::string& out) override {
    diagnostics_.close(out);
    out += ",\n  \"errors\": ";
    append_nested(out, errors_, 2);
    out += "\n}\n";
  }

 private:
  std::string version_;
  StreamedArray diagnostics_{2};
  ordered errors_ = ordered::array();
};

class SarifReporter final : public Reporter {
 public:
  explicit SarifReporter(const ReportOptions& o) : version_(o.tool_version) {
    for (const auto& r : all_rules()) rules_.push_back(r.info);
  }
  void begin(std::string& out) override {
    std::error_code ec;
    std::string root = "file://" + percent_encode(std::filesystem::current_path(ec).generic_string());
    if (root.back() != '/') root += '/';
    out +=
        "{\n  \"$schema\": \"https://json.schemastore.org/sarif-2.1.0.json\",\n  \"version\": \"2.1.0\",\n"
        "  \"runs\": [\n    {\n      \"tool\": ";
    out += tool_text(version_, rules_);
    out += ",\n      \"originalUriBaseIds\": ";
    append_nested(out, ordered{{"%SRCROOT%", {{"uri", root}}}}, 6);
    out += ",\n      \"columnKind\": \"unicodeCodePoints\",\n      \"results\": [";
  }

  // The tool object with every rule's metadata (about 160 KB): the same for every report of a
  // process, so it is built once (the fuzz targets write a report per input).
  static std::string tool_text(const std::string& version, const std::vector<const RuleInfo*>& rules) {
    static std::mutex mutex;
    static std::string cached_version, cached;
    std::lock_guard<std::mutex> lock(mutex);
    if (!cached.empty() && cached_version == version) return cached;
    ordered rules_json = ordered::array();
    for (const RuleInfo* r : rules) {
      rules_json.push_back(
          {{"id", r->id},
           {"name", r->name},
           {"shortDescription", {{"text", r->summary}}},
           {"fullDescription", {{"text", what_it_does(r->doc)}}},
           {"help", {{"text", r->doc}, {"markdown", r->doc}}},
           {"defaultConfiguration", {{"level", sarif_level(r->severity)}}},
           {"properties",
            {{"tags", {"performance", "spark"}}, {"fix", to_string(r->fix)}, {"impact", to_string(r->impact)}}}});
    }
    std::string text;
    append_nested(
        text,
        ordered{{"driver",
                 {{"name", "planlint"}, {"version", version}, {"semanticVersion", version}, {"rules", rules_json}}}},
        6);
    cached_version = version;
    cached = std::move(text);
    return cached;
  }
  void file(const FileResult& r, std::string& out) override {
    if (!r.io_error.empty())
      notifications_.push_back({{"level", "error"}, {"message", {{"text", r.path + ": " + r.io_error}}}});
    for (const auto& d : r.diagnostics) {
      results_.add(out, result_json(r, d));
      maybe_flush(out);
    }
  }
  void end(std::string& out) override {
    results_.close(out);
    ordered invocations =
        notifications_.empty()
            ? ordered::array({{{"executionSuccessful", true}}})
            : ordered::array({{{"executionSuccessful", false}, {"toolExecutionNotifications", notifications_}}});
    out += ",\n      \"invocations\": ";
    append_nested(out, invocations, 6);
    out += "\n    }\n  ]\n}\n";
  }

 private:
  int rule_index(const RuleInfo* r) const {
    for (std::size_t i = 0; i < rules_.size(); ++i)
      if (rules_[i] == r) return static_cast<int>(i);
    return -1;
  }
  ordered result_json(const FileResult& r, const Diagnostic& d) const {
    std::string text = d.message;
    if (d.fix && !d.fix->suggestion.empty()) text += "\nFix: " + d.fix->suggestion;
    ordered j{{"ruleId", d.rule->id},
              {"ruleIndex", rule_index(d.rule)},
              {"level", sarif_level(d.severity)},
              {"message", {{"text", text}}},
              {"locations", ordered::array({{{"physicalLocation", physical_location(r, d.location)}}})},
              {"partialFingerprints", {{"planlintFingerprint/v1", d.fingerprint}}}};
    if (d.location.cell > 0)
      j["properties"] = {
          {"cell", d.location.cell}, {"cellLine", d.location.cell_line}, {"cellColumn", d.location.cell_column}};
    if (!d.related.empty()) {
      ordered rel = ordered::array();
      int id = 1;
      for (const auto& rl : d.related)
        rel.push_back({{"id", id++},
                       {"physicalLocation", physical_location(r, rl.location)},
                       {"message", {{"text", rl.message}}}});
      j["relatedLocations"] = rel;
    }
    // Notebook edits are in cell coordinates inside JSON strings: no raw-file replacement to offer.
    if (d.fix && !d.fix->edits.empty() && d.location.cell == 0) {
      ordered replacements = ordered::array();
      for (const auto& e : d.fix->edits) {
        ordered region{{"startLine", e.range.line},
                       {"startColumn", code_point_column(r, e.range.line, e.range.column)},
                       {"endLine", e.range.end_line},
                       {"endColumn", code_point_column(r, e.range.end_line, e.range.end_column)}};
        replacements.push_back({{"deletedRegion", region}, {"insertedContent", {{"text", e.replacement}}}});
      }
      ordered loc = physical_location(r, d.location)["artifactLocation"];
      j["fixes"] = ordered::array(
          {{{"description", {{"text", d.fix->title}}},
            {"artifactChanges", ordered::array({{{"artifactLocation", loc}, {"replacements", replacements}}})}}});
    }
    return j;
  }

  std::string version_;
  std::vector<const RuleInfo*> rules_;
  StreamedArray results_{6};
  ordered notifications_ = ordered::array();
};

}  // namespace

std::unique_ptr<Reporter> make_reporter(std::string_view format, const ReportOptions& options) {
  if (format == "json") return std::make_unique<JsonReporter>(options);
  if (format == "sarif") return std::make_unique<SarifReporter>(options);
  if (format == "markdown") return make_markdown_reporter();
  return make_text_reporter(format, options);
}

std::string render(std::string_view format, const std::vector<FileResult>& results, const ReportOptions& options) {
  auto reporter = make_reporter(format, options);
  std::string out;
  if (!reporter) return out;
  reporter->begin(out);
  for (const auto& r : results) reporter->file(r, out);
  reporter->end(out);
  return out;
}

std::string render_text(const std::vector<FileResult>& results, const ReportOptions& options) {
  return render("text", results, options);
}
std::string render_json(const std::vector<FileResult>& results, const ReportOptions& options) {
  return render("json", results, options);
}
std::string render_sarif(const std::vector<FileResult>& results, const ReportOptions& options) {
  return render("sarif", results, options);
}
std::string render_github(const std::vector<FileResult>& results, const ReportOptions& options) {
  return render("github", results, options);
}
std::string render_statistics(const std::vector<FileResult>& results) { return render("statistics", results, {}); }

}  // namespace planlint::report
