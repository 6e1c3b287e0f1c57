// What a rule reports: a located message with its rule, severity and an optional fix.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace planlint::lint {

enum class Severity : std::uint8_t { info, warning, error };
std::string_view to_string(Severity s);
std::optional<Severity> parse_severity(std::string_view text);

// ruff's three levels: safe fixes are applied by --fix, unsafe ones need --unsafe-fixes,
// display-only ones are shown and never applied.
enum class Applicability : std::uint8_t { display_only, unsafe, safe };
std::string_view to_string(Applicability a);

// 1-based; end_column is exclusive. For notebooks, line/column are in the raw file and the cell
// fields say where the finding is inside the cell (cell 0: not a notebook).
struct Location {
  std::string path;
  std::uint32_t line = 0;
  std::uint32_t column = 0;
  std::uint32_t end_line = 0;
  std::uint32_t end_column = 0;
  int cell = 0;
  std::uint32_t cell_line = 0;
  std::uint32_t cell_column = 0;
};

// A text edit. Source rules give byte offsets into a cell's text (cell 1 for a plain .py file);
// `range` is the same place as a Location, for reporters.
struct Edit {
  Location range;
  std::string replacement;
  int cell = 1;
  std::uint32_t start_byte = 0, end_byte = 0;
};

struct Fix {
  std::string title;
  Applicability applicability = Applicability::display_only;
  std::vector<Edit> edits;
  std::string suggestion;  // the change to make, as PySpark or SQL text, for display
};

struct RelatedLocation {
  Location location;
  std::string message;
};

struct RuleInfo;

// A finding's fingerprint: up to 16 characters (planlint's are 16 hex digits), held in place. As a
// string, 16 characters would be a heap allocation in each of a large file's findings.
class Fingerprint {
 public:
  static constexpr std::size_t kMax = 16;
  Fingerprint() = default;
  Fingerprint(std::string_view s) { assign(s); }  // NOLINT(google-explicit-constructor): reads as a string
  Fingerprint& operator=(std::string_view s) {
    assign(s);
    return *this;
  }
  [[nodiscard]] std::string_view view() const { return {chars_, size_}; }
  operator std::string_view() const { return view(); }  // NOLINT(google-explicit-constructor)
  [[nodiscard]] std::string str() const { return std::string(view()); }
  [[nodiscard]] bool empty() const { return size_ == 0; }
  void clear() { size_ = 0; }
  friend bool operator==(const Fingerprint& a, const Fingerprint& b) { return a.view() == b.view(); }

 private:
  void assign(std::string_view s) {
    size_ = static_cast<std::uint8_t>(s.size() < kMax ? s.size() : kMax);
    s.copy(chars_, size_);
  }
  char chars_[kMax] = {};
  std::uint8_t size_ = 0;
};

// Declared so that a finding is 256 bytes (an allocator size class: findings are held one by one).
struct Diagnostic {
  const RuleInfo* rule = nullptr;
  Severity severity = Severity::warning;
  bool fails = true;        // makes the exit status 1 (false: a --warn rule, or below --fail-on)
  Fingerprint fingerprint;  // stable across moved lines and renumbered expression ids
  Location location;
  std::string message;
  std::vector<RelatedLocation> related;
  std::optional<Fix> fix;
};
static_assert(sizeof(Diagnostic) <= 256);

}  // namespace planlint::lint
