// The floor planlint's source analysis is measured against: read each file, split notebooks into
// cells the way planlint does, and parse every Python cell with tree-sitter-python. Nothing else.
// usage: parse_only FILE...   (prints the number of files and bytes parsed)
#include <cstdio>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>

#include "pyspark/notebook.hpp"
#include "pyspark/python_parser.hpp"

int main(int argc, char** argv) {
  planlint::pyspark::PythonParser parser;
  std::size_t files = 0, bytes = 0, nodes = 0;
  for (int i = 1; i < argc; ++i) {
    std::ifstream in(argv[i], std::ios::binary);
    if (!in) continue;
    std::stringstream ss;
    ss << in.rdbuf();
    std::string raw = ss.str();
    bytes += raw.size();
    ++files;
    auto file = planlint::pyspark::load_source(argv[i], std::move(raw));
    for (const auto& cell : file.cells) {
      if (cell.language != planlint::pyspark::CellLanguage::python) continue;
      auto tree = parser.parse(cell.text);
      if (tree) nodes += 1;
    }
  }
  std::printf("%zu files, %zu bytes, %zu trees\n", files, bytes, nodes);
  return 0;
}
