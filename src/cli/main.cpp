// planlint command line: argument parsing with CLI11, dispatch to parse / lint / rules.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <sstream>

#include "plan/dump.hpp"
#include "plan/plan.hpp"

int main(int argc, char** argv) {
  CLI::App app{"planlint: find Spark performance problems in plan text"};
  app.set_version_flag("--version", std::string("planlint ") + PLANLINT_VERSION);
  auto* parse = app.add_subcommand("parse", "Parse a plan file and print its tree");
  std::string file;
  std::string dump = "text";
  parse->add_option("FILE", file, "Plan file ('-' for stdin)")->required();
  parse->add_option("--dump", dump, "Dump format")->check(CLI::IsMember({"text", "json"}))->expected(0, 1)->default_str("text");
  CLI11_PARSE(app, argc, argv);
  if (*parse) {
    std::stringstream ss;
    if (file == "-") {
      ss << std::cin.rdbuf();
    } else {
      std::ifstream in(file, std::ios::binary);
      if (!in) {
        std::cerr << "planlint: error: " << file << ": cannot open\n";
        return 2;
      }
      ss << in.rdbuf();
    }
    auto doc = planlint::plan::parse_document(ss.str(), file);
    std::cout << (dump == "json" ? planlint::plan::dump_json(doc) : planlint::plan::dump_text(doc));
    return doc.errors.empty() ? 0 : 1;
  }
  return 0;
}
