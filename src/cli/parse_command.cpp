// `planlint parse FILE`: a plan file's tree, as text, JSON, DOT or one HTML page.
#include <iostream>
#include <memory>
#include <string>

#include "cli/command.hpp"
#include "cli/pipeline.hpp"
#include "plan/dump.hpp"
#include "plan/plan.hpp"
#include "report/plan_graph.hpp"

namespace planlint::cli {

namespace {

int run_parse(const std::string& file, const std::string& dump) {
  std::string text, error;
  if (!read_all({file, file == "-"}, text, error)) {
    std::cerr << "planlint: error: " << file << ": " << error << "\n";
    return 2;
  }
  auto doc = plan::parse_document(std::move(text), file);
  if (dump == "dot" || dump == "html") {
    auto graphs = report::plan_graphs(doc, {});
    std::cout << (dump == "dot" ? report::render_dot(graphs)
                                : report::render_html(graphs, "planlint parse " + file, ""));
  } else {
    std::cout << (dump == "json" ? plan::dump_json(doc) : plan::dump_text(doc));
  }
  for (const auto& e : doc.errors)
    std::cerr << file << ":" << e.line << ":" << e.column << ": error: " << e.message << "\n";
  return doc.errors.empty() ? 0 : 1;
}

}  // namespace

Subcommand add_parse_command(CLI::App& app) {
  struct Options {
    std::string file;
    std::string dump = "text";
  };
  auto o = std::make_shared<Options>();
  auto* parse = app.add_subcommand("parse", "Parse a plan file and print its tree (for debugging and bug reports)");
  parse->add_option("FILE", o->file, "Plan file ('-' for stdin)")->required();
  // `--dump` alone prints the indented tree; `--dump json` the JSON form.
  parse
      ->add_option("--dump", o->dump,
                   "Tree dump format (text when given alone; dot for Graphviz, html for one self-contained page)")
      ->check(CLI::IsMember({"text", "json", "dot", "html"}))
      ->expected(0, 1)
      ->default_str("text");
  return {parse, [o] { return run_parse(o->file, o->dump); }};
}

}  // namespace planlint::cli
