// Source inputs as cells: a .py file is one cell; Jupyter and Databricks notebooks are split into
// their cells, with every cell line mapped back to its place in the file the user has.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace planlint::pyspark {

// databricks and fabric: notebooks saved as .py files, cells between separator comments.
enum class SourceKind { python, jupyter, databricks, fabric };
enum class CellLanguage { python, sql, scala, other };  // scala: read for configuration settings only

// Where one line of a cell's text sits in the raw file.
struct LineOrigin {
  std::uint32_t raw_line = 0;    // 1-based
  std::uint32_t raw_column = 0;  // 1-based column of the cell line's first character (JSON: the string's quote)
  bool verbatim = true;          // cell text equals raw text on this line (false inside JSON strings)
};

// A cell's LineOrigins, one per line, kept as runs: the lines of a .py file or of a Databricks
// cell follow each other in the file (one run), the lines of one JSON string share its origin.
// Read like a vector of LineOrigin; a large file's table is a few entries, not 12 bytes a line.
class LineTable {
 public:
  [[nodiscard]] std::size_t size() const { return count_; }
  [[nodiscard]] bool empty() const { return count_ == 0; }
  [[nodiscard]] LineOrigin operator[](std::size_t i) const;  // i < size()
  void push_back(const LineOrigin& o);
  // count lines that are lines 1.. of the file from raw line 1 (column first_column on the first).
  void assign_file_lines(std::size_t count, std::uint32_t first_column);
  void shrink_to_fit() { runs_.shrink_to_fit(); }

 private:
  struct Run {
    std::size_t first = 0;   // index of its first line
    LineOrigin origin;       // of that line
    std::uint32_t step = 0;  // raw lines from one line of the run to the next (0 or 1)
  };
  std::vector<Run> runs_;
  std::size_t count_ = 0;
};

struct Cell {
  int number = 1;  // counted from 1 over all cells of the notebook, as ruff does
  CellLanguage language = CellLanguage::python;
  std::string text;      // Python source with magics masked (same length), or the SQL text
  std::string original;  // the source before masking, when masking changed it (else empty)
  // What the user wrote: edits apply to it.
  [[nodiscard]] const std::string& unmasked() const { return original.empty() ? text : original; }
  bool verbatim = false;      // text is a byte range of the raw file (.py, Databricks Python cells)
  std::size_t raw_begin = 0;  // verbatim: where the text starts in the raw file
  LineTable lines;
  // Jupyter: the raw JSON of the cell's "source" value, for rewriting only this cell.
  std::size_t source_begin = 0, source_end = 0;
  bool source_is_list = true;
  // Jupyter: each string of the "source" value: its raw JSON (quotes included) and the length of its
  // text in `unmasked()`, in order. A fix rewrites only the strings whose text changed.
  struct SourcePiece {
    std::size_t raw_begin = 0, raw_end = 0, text_size = 0;
  };
  std::vector<SourcePiece> source_pieces;
};

struct LoadError {
  std::uint32_t line = 0, column = 0;
  std::string message;
};

struct SourceFile {
  std::string path;
  SourceKind kind = SourceKind::python;
  // The file as read, less what the cells hold: a plain .py file keeps only its byte-order mark here
  // (the rest is cells[0]), a Databricks notebook all but its Python cells. whole_raw() is the file.
  std::string raw;
  std::vector<Cell> cells;
  std::vector<LoadError> errors;  // the file could not be read as its kind
  std::size_t bom = 0;            // bytes of a UTF-8 byte-order mark before a plain .py file's text
};

// The raw file with each cell's source replaced by new_texts[cell number] (cells not in the map keep
// theirs). Jupyter cells are re-serialised in the notebook's own layout; everything else stays
// byte-identical. nullopt when an edited cell cannot be written back (e.g. a Databricks MAGIC cell).
std::optional<std::string> rebuild_source(const SourceFile& file, const std::map<int, std::string>& new_texts);

// The file as read, put back together from raw and the cells.
std::string whole_raw(const SourceFile& file);
// The same without the copy: the file's bytes in order, in pieces of whole lines (the last piece's
// last line may lack its line break).
void for_each_raw_piece(const SourceFile& file, const std::function<void(std::string_view)>& piece);

// The cell with that number, or nullptr. Cells are numbered in order (a notebook's cells that are
// not kept leave gaps): found by index or by binary search, not by a scan (asked once per finding).
const Cell* find_cell(const SourceFile& file, int number);

// Decides the kind from the extension and content (Databricks header or separators).
SourceFile load_source(std::string path, std::string raw);

bool is_source_path(std::string_view path);
bool is_synapse_notebook_path(std::string_view path);  // notebook/<name>.json of a Synapse workspace

}  // namespace planlint::pyspark
