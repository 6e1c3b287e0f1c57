// Runs the plan-line grammar over one line; actions sit on whole rules and only fill a LineRecord.
#include "plan/line_reader.hpp"

#include <charconv>
#include <cstdint>
#include <cstring>

#include "../../grammar/plan_args.hpp"
#include "../../grammar/plan_line.hpp"

namespace planlint::plan {
namespace {

namespace pegtl = tao::pegtl;
namespace g = planlint::grammar;

struct LineState {
  const char* begin;
  LineRecord& rec;
};

int to_int(std::string_view s) {
  int v = 0;
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc{}) return -1;  // absurdly long digit runs are not numbers we trust
  return v;
}

template <typename Rule>
struct line_action : pegtl::nothing<Rule> {};

template <>
struct line_action<g::header_title> {
  template <typename In>
  static void apply(const In& in, LineState& st) {
    st.rec.title = std::string_view(in.begin(), in.size());
  }
};
template <>
struct line_action<g::aqe_title> : line_action<g::header_title> {};

template <>
struct line_action<g::branch> {
  template <typename In>
  static void apply(const In& in, LineState& st) {
    st.rec.branch_column = static_cast<int>(in.begin() - st.begin);
    st.rec.content_column = st.rec.branch_column + 3;
  }
};

template <>
struct line_action<g::op_markers> {
  template <typename In>
  static void apply(const In& in, LineState& st) {
    st.rec.content_column = static_cast<int>(in.begin() - st.begin);
  }
};

template <>
struct line_action<g::codegen_stage> {
  template <typename In>
  static void apply(const In& in, LineState& st) {
    st.rec.codegen_stage = to_int(std::string_view(in.begin() + 2, in.size() - 4));
  }
};
template <>
struct line_action<g::codegen_star> {
  template <typename In>
  static void apply(const In& /*in*/, LineState& st) {
    st.rec.codegen_stage = 0;  // in a codegen stage whose number is not printed
  }
};
template <>
struct line_action<g::fallback_mark> {
  template <typename In>
  static void apply(const In& /*in*/, LineState& st) {
    st.rec.fallback = true;
  }
};
template <>
struct line_action<g::unresolved_mark> {
  template <typename In>
  static void apply(const In& /*in*/, LineState& st) {
    st.rec.unresolved = true;
  }
};
template <>
struct line_action<g::op_name> {
  template <typename In>
  static void apply(const In& in, LineState& st) {
    st.rec.name = std::string_view(in.begin(), in.size());
    st.rec.name_column = static_cast<int>(in.begin() - st.begin);
  }
};
template <>
struct line_action<g::op_args> {
  template <typename In>
  static void apply(const In& in, LineState& st) {
    std::string_view a(in.begin(), in.size());
    while (!a.empty() && (a.front() == ' ')) a.remove_prefix(1);
    while (!a.empty() && (a.back() == ' ' || a.back() == '\t')) a.remove_suffix(1);
    st.rec.args = a;
  }
};
template <>
struct line_action<g::operator_id> {
  template <typename In>
  static void apply(const In& in, LineState& st) {
    st.rec.operator_id = to_int(std::string_view(in.begin(), in.size()));
  }
};
template <>
struct line_action<g::stage_statistics> {
  template <typename In>
  static void apply(const In& in, LineState& st) {
    std::string_view v(in.begin() + 2, in.size() - 2);
    while (!v.empty() && v.back() == ' ') v.remove_suffix(1);
    st.rec.statistics = v;
  }
};
template <>
struct line_action<g::details_id> {
  template <typename In>
  static void apply(const In& in, LineState& st) {
    const std::string_view id(in.begin(), in.size());
    st.rec.number = id == "unknown" ? -1 : to_int(id);
  }
};
template <>
struct line_action<g::subquery_number> {
  template <typename In>
  static void apply(const In& in, LineState& st) {
    st.rec.number = to_int(std::string_view(in.begin(), in.size()));
  }
};
template <>
struct line_action<g::details_name> {
  template <typename In>
  static void apply(const In& in, LineState& st) {
    st.rec.name = std::string_view(in.begin(), in.size());
    st.rec.name_column = static_cast<int>(in.begin() - st.begin);
  }
};
template <>
struct line_action<g::codegen_id> {
  template <typename In>
  static void apply(const In& in, LineState& st) {
    st.rec.codegen_id = to_int(std::string_view(in.begin(), in.size()));
  }
};
template <>
struct line_action<g::hosting_id> {
  template <typename In>
  static void apply(const In& in, LineState& st) {
    st.rec.hosting_id = to_int(std::string_view(in.begin(), in.size()));
  }
};
template <>
struct line_action<g::hosting_expression> {
  template <typename In>
  static void apply(const In& in, LineState& st) {
    st.rec.hosting_expression = std::string_view(in.begin(), in.size());
  }
};

// Try one grammar on the line with a fresh record. Returns false when it does not match; a
// committed rule that fails (must<>) turns the record into an error.
template <typename Rule>
bool try_rule(std::string_view line, LineKind kind, LineRecord& rec) {
  // Actions are not rolled back when a rule fails: a record that did not match is cleared.
  rec = LineRecord{};
  LineState st{line.data(), rec};
  pegtl::memory_input<pegtl::tracking_mode::lazy> in(line.data(), line.size(), "");
  try {
    if (!pegtl::parse<Rule, line_action, g::control>(in, st)) {
      rec = LineRecord{};
      return false;
    }
    rec.kind = kind;
  } catch (const pegtl::parse_error& e) {
    rec = LineRecord{};
    rec.kind = LineKind::error;
    rec.error = std::string(e.message());
    rec.error_column = e.positions().empty() ? 0 : static_cast<int>(e.positions().front().byte);
  }
  return true;
}

// The first byte below 0x20 other than a tab, or npos. Eight bytes at a time: a word holds a byte
// below 0x20 exactly when (x - 0x20..20) & ~x & 0x80..80 is not zero; only such words (rare: tabs)
// are looked at byte by byte.
std::size_t control_character(std::string_view line) {
  constexpr std::uint64_t ones = 0x0101010101010101ULL, highs = 0x8080808080808080ULL;
  std::size_t i = 0;
  for (; i + 8 <= line.size(); i += 8) {
    std::uint64_t x = 0;
    std::memcpy(&x, line.data() + i, 8);
    if (((x - ones * 0x20) & ~x & highs) == 0) continue;
    for (std::size_t k = i; k < i + 8; ++k)
      if (auto u = static_cast<unsigned char>(line[k]); u < 0x20 && u != '\t') return k;
  }
  for (; i < line.size(); ++i)
    if (auto u = static_cast<unsigned char>(line[i]); u < 0x20 && u != '\t') return i;
  return std::string_view::npos;
}

}  // namespace

LineRecord read_plan_line(std::string_view line) {
  LineRecord rec;
  if (auto at = control_character(line); at != std::string_view::npos) {
    rec.kind = LineKind::error;
    rec.error = "unexpected control character in plan text";
    rec.error_column = static_cast<int>(at);
    return rec;
  }
  // The grammar decides; these tests only skip rules that cannot match (blank_line is exactly
  // spaces and tabs, a section header starts with "=" after them).
  // A loop, not find_first_not_of(" \t"): libstdc++ calls memchr for each character it passes, and
  // tree lines are indented deeply.
  std::size_t first = 0;
  while (first < line.size() && (line[first] == ' ' || line[first] == '\t')) ++first;
  if (first == line.size()) {
    rec.kind = LineKind::blank;
    return rec;
  }
  if (line[first] == '=' && try_rule<g::section_header>(line, LineKind::section_header, rec)) return rec;
  if (!line.empty() && line.front() == '(' && try_rule<g::details_header>(line, LineKind::details_header, rec))
    return rec;
  if (line.rfind("Subquery:", 0) == 0 && try_rule<g::subquery_header>(line, LineKind::subquery_header, rec)) return rec;
  if (try_rule<g::tree_line>(line, LineKind::tree_node, rec)) {
    if (rec.kind == LineKind::tree_node && !rec.title.empty()) rec.kind = LineKind::aqe_header;
    return rec;
  }
  if (try_rule<g::root_line>(line, LineKind::tree_node, rec)) return rec;
  rec = LineRecord{};
  rec.kind = LineKind::text;
  return rec;
}

namespace {
struct FieldState {
  DetailsField f;
};
template <typename Rule>
struct field_action : pegtl::nothing<Rule> {};
template <>
struct field_action<g::field_key> {
  template <typename In>
  static void apply(const In& in, FieldState& st) {
    st.f.key = std::string_view(in.begin(), in.size());
  }
};
template <>
struct field_action<g::field_value> {
  template <typename In>
  static void apply(const In& in, FieldState& st) {
    std::string_view v(in.begin(), in.size());
    while (!v.empty() && (v.back() == ' ' || v.back() == '\t')) v.remove_suffix(1);
    st.f.value = v;
  }
};

template <typename Rule>
struct ref_action : pegtl::nothing<Rule> {};
struct RefState {
  std::vector<AttributeRef> refs;
  AttributeRef cur;
};
template <>
struct ref_action<grammar::args::attr_name> {
  template <typename In>
  static void apply(const In& in, RefState& st) {
    st.cur = AttributeRef{std::string(in.begin(), in.size()), {}, false};
  }
};
template <>
struct ref_action<grammar::args::attr_id> {
  template <typename In>
  static void apply(const In& in, RefState& st) {
    st.cur.id.assign(in.begin(), in.size());
  }
};
template <>
struct ref_action<grammar::args::long_suffix> {
  template <typename In>
  static void apply(const In& /*in*/, RefState& st) {
    st.cur.is_long = true;
  }
};
template <>
struct ref_action<grammar::args::attr_ref> {
  template <typename In>
  static void apply(const In& /*in*/, RefState& st) {
    st.refs.push_back(st.cur);
  }
};
}  // namespace

std::optional<DetailsField> read_details_field(std::string_view line) {
  FieldState st;
  pegtl::memory_input<pegtl::tracking_mode::lazy> in(line.data(), line.size(), "");
  if (!pegtl::parse<g::details_field, field_action>(in, st)) return std::nullopt;
  return st.f;
}

std::vector<AttributeRef> scan_attribute_refs(std::string_view text) {
  RefState st;
  pegtl::memory_input<pegtl::tracking_mode::lazy> in(text.data(), text.size(), "");
  pegtl::parse<grammar::args::attr_scan, ref_action>(in, st);
  return std::move(st.refs);
}

}  // namespace planlint::plan
