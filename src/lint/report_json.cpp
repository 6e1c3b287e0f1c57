// Machine output with nlohmann-json: planlint's versioned JSON schema and SARIF 2.1.0.
#include <filesystem>
#include <nlohmann/json.hpp>

#include "lint/report.hpp"
#include "lint/rule.hpp"

namespace planlint::lint {
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

ordered physical_location(const FileResult& r, const Location& l) {
  ordered artifact;
  std::string rel = relative_uri(l.path);
  if (!rel.empty()) {
    artifact = {{"uri", rel}, {"uriBaseId", "%SRCROOT%"}};
  } else {
    std::error_code ec;
    artifact = {{"uri", "file://" + percent_encode(std::filesystem::absolute(l.path, ec).generic_string())}};
  }
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

std::string render_json(const std::vector<FileResult>& results, const ReportOptions& options) {
  ordered diags = ordered::array();
  ordered errors = ordered::array();
  for (const auto& r : results) {
    if (!r.io_error.empty()) errors.push_back({{"file", r.path}, {"message", r.io_error}});
    for (const auto& d : r.diagnostics) {
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
      diags.push_back(j);
    }
  }
  ordered out{{"version", kJsonSchemaVersion},
              {"tool", {{"name", "planlint"}, {"version", options.tool_version}}},
              {"diagnostics", diags},
              {"errors", errors}};
  return out.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

std::string render_sarif(const std::vector<FileResult>& results, const ReportOptions& options) {
  std::vector<const RuleInfo*> rules;
  for (const auto& r : all_rules()) rules.push_back(r.info);
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
  auto rule_index = [&](const RuleInfo* r) {
    for (std::size_t i = 0; i < rules.size(); ++i)
      if (rules[i] == r) return static_cast<int>(i);
    return -1;
  };
  ordered res = ordered::array();
  ordered notifications = ordered::array();
  for (const auto& r : results) {
    if (!r.io_error.empty())
      notifications.push_back({{"level", "error"}, {"message", {{"text", r.path + ": " + r.io_error}}}});
    for (const auto& d : r.diagnostics) {
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
      res.push_back(j);
    }
  }
  std::error_code ec;
  std::string root = "file://" + percent_encode(std::filesystem::current_path(ec).generic_string());
  if (root.back() != '/') root += '/';
  ordered run{{"tool",
               {{"driver",
                 {{"name", "planlint"},
                  {"version", options.tool_version},
                  {"semanticVersion", options.tool_version},
                  {"rules", rules_json}}}}},
              {"originalUriBaseIds", {{"%SRCROOT%", {{"uri", root}}}}},
              {"columnKind", "unicodeCodePoints"},
              {"results", res}};
  if (!notifications.empty())
    run["invocations"] =
        ordered::array({{{"executionSuccessful", false}, {"toolExecutionNotifications", notifications}}});
  else
    run["invocations"] = ordered::array({{{"executionSuccessful", true}}});
  ordered out{{"$schema", "https://json.schemastore.org/sarif-2.1.0.json"}, {"version", "2.1.0"}, {"runs", {run}}};
  return out.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

}  // namespace planlint::lint
