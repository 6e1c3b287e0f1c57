// libFuzzer entry for notebooks, structure-aware: the first byte picks how the rest is used.
//   0: the bytes are an .ipynb file as they are (the JSON reader);
//   1: the bytes, split at NUL, are the sources of the code cells of a well-formed notebook (list
//      and string sources alternate), so mutations explore cell contents rather than JSON syntax;
//   2: the bytes are a Databricks source notebook body (split into cells at \x01, MAGIC lines at \x02).
// Each is linted, fixed with unsafe fixes and reported; a fix of a notebook must stay valid JSON.
#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

#include "fix/fixer.hpp"
#include "fuzz_util.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  int mode = data[0] % 3;
  std::string body(reinterpret_cast<const char*>(data + 1), size - 1);
  std::string text, path = "fuzz.ipynb";
  if (mode == 0) {
    text = body;
  } else if (mode == 1) {
    nlohmann::json cells = nlohmann::json::array();
    std::size_t start = 0;
    for (int i = 0; start <= body.size() && i < 64; ++i) {
      std::size_t nul = body.find('\0', start);
      std::string src = body.substr(start, nul == std::string::npos ? std::string::npos : nul - start);
      nlohmann::json source = src;
      if (i % 2 == 0) {  // list form: one string per line, newlines kept
        source = nlohmann::json::array();
        std::size_t b = 0;
        while (b < src.size()) {
          std::size_t nl = src.find('\n', b);
          std::size_t e = nl == std::string::npos ? src.size() : nl + 1;
          source.push_back(src.substr(b, e - b));
          b = e;
        }
      }
      cells.push_back({{"cell_type", "code"},
                       {"metadata", nlohmann::json::object()},
                       {"outputs", nlohmann::json::array()},
                       {"execution_count", nullptr},
                       {"source", source}});
      if (nul == std::string::npos) break;
      start = nul + 1;
    }
    nlohmann::json nb{{"cells", cells}, {"metadata", nlohmann::json::object()}, {"nbformat", 4}, {"nbformat_minor", 5}};
    text = nb.dump(1, ' ', false, nlohmann::json::error_handler_t::replace);
  } else {
    path = "fuzz_databricks.py";
    text = "# Databricks notebook source\n";
    for (char c : body) {
      if (c == '\x01')
        text += "\n# COMMAND ----------\n";
      else if (c == '\x02')
        text += "\n# MAGIC ";
      else
        text += c;
    }
  }
  planlint::lint::LintOptions options;
  options.select = {"ALL"};
  planlint::fix::FixOptions fix;
  fix.unsafe = true;
  fix.max_rounds = 3;
  auto out = planlint::fix::fix_text(path, text, options, fix);
  planlint::fuzz::check_reports({out.remaining});
  if (path == "fuzz.ipynb" && out.fixed != text && nlohmann::json::accept(text) && !nlohmann::json::accept(out.fixed))
    std::abort();  // a fix turned a valid notebook into invalid JSON
  return 0;
}
