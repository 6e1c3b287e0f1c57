// PEGTL grammar for one line of Spark plan text (explain / EXPLAIN output). Rules only, no actions:
// src/plan/line_reader.cpp attaches actions to whole rules and decides what a line means in context.
#pragma once

#include <cstring>
#include <string_view>
#include <tao/pegtl.hpp>
#include <tao/pegtl/contrib/analyze_traits.hpp>

namespace planlint::grammar {

namespace pegtl = tao::pegtl;

struct spaces : pegtl::star<pegtl::one<' ', '\t'>> {};
struct blank_line : pegtl::seq<spaces, pegtl::eof> {};
struct digits : pegtl::plus<pegtl::digit> {};

// "== Physical Plan ==", "===== Subqueries =====", "== Subtree 1 / 2 (maxMethodCodeSize:...) =="
struct equals_run : pegtl::seq<pegtl::two<'='>, pegtl::star<pegtl::one<'='>>> {};
struct header_title : pegtl::plus<pegtl::not_at<pegtl::one<' '>, equals_run>, pegtl::any> {};
struct section_header
    : pegtl::seq<spaces, equals_run, pegtl::one<' '>, header_title, pegtl::one<' '>, equals_run, spaces, pegtl::eof> {};

// generateTreeString prefixes: each ancestor adds "   " or ":  ", the node adds "+- " or ":- ".
struct branch : pegtl::seq<pegtl::one<'+', ':'>, pegtl::one<'-'>, pegtl::one<' '>> {};
// star<not_at<branch>, one<' ', ':'>>, written out: deep trees indent every line by dozens of columns.
struct indent {
  using rule_t = indent;
  using subs_t = pegtl::empty_list;
  template <typename ParseInput>
  static bool match(ParseInput& in) {
    const char* begin = in.current();
    const char* end = in.end();
    const char* p = begin;
    while (p < end && (*p == ' ' || *p == ':')) {
      if (*p == ':' && end - p >= 3 && p[1] == '-' && p[2] == ' ') break;  // ":- " is a branch
      ++p;
    }
    in.bump(static_cast<std::size_t>(p - begin));
    return true;
  }
};

// Markers in front of an operator name: whole-stage codegen "*(2) " (Spark 3), "* " (formatted),
// "*Project" (Spark 2); Gluten transformer stages "^(3) " and "^ " (formatted); RAPIDS "!" (cannot run on GPU);
// unresolved logical operators "'Project".
struct codegen_stage : pegtl::seq<pegtl::one<'*'>, pegtl::one<'('>, digits, pegtl::one<')'>, pegtl::one<' '>> {};
struct transformer_stage : pegtl::seq<pegtl::one<'^'>, pegtl::one<'('>, digits, pegtl::one<')'>, pegtl::one<' '>> {};
struct codegen_star : pegtl::seq<pegtl::one<'*'>, pegtl::opt<pegtl::one<' '>>> {};
struct transformer_star : pegtl::seq<pegtl::one<'^'>, pegtl::one<' '>> {};
struct fallback_mark : pegtl::one<'!'> {};
struct unresolved_mark : pegtl::one<'\''> {};
// Comet's explain with fallback reasons prints a space where the codegen star would be: "+-  Exchange [COMET: ...]".
struct blank_mark : pegtl::seq<pegtl::one<' '>, pegtl::at<pegtl::ranges<'a', 'z', 'A', 'Z'>>> {};
struct op_markers
    : pegtl::seq<pegtl::opt<pegtl::sor<codegen_stage, transformer_stage, codegen_star, transformer_star, blank_mark>>,
                 pegtl::opt<fallback_mark>, pegtl::opt<unresolved_mark>> {};

struct op_name : pegtl::seq<pegtl::ranges<'a', 'z', 'A', 'Z', '_'>,
                            pegtl::star<pegtl::ranges<'a', 'z', 'A', 'Z', '0', '9', '_', '_', '$', '$'>>> {};
// Formatted mode ends a tree line with the operator's number: "Exchange (27)", or "(unknown)" for
// operators of an AQE initial plan that were never numbered.
struct operator_id : digits {};
// AQE query stages may append their runtime statistics: "ShuffleQueryStage (5), Statistics(sizeInBytes=3.4 EiB)".
struct stage_statistics : pegtl::seq<TAO_PEGTL_STRING(", Statistics("), pegtl::star<pegtl::any>> {};
struct operator_number
    : pegtl::seq<pegtl::one<' '>, pegtl::one<'('>, pegtl::sor<operator_id, TAO_PEGTL_STRING("unknown")>,
                 pegtl::one<')'>, pegtl::opt<stage_statistics>, spaces, pegtl::eof> {};
// Everything up to the operator number that ends the line, or to the end of the line:
// star<not_at<operator_number>, any>, written out because it runs over every byte of every operator
// line and only a " (" can start an operator number.
struct op_args {
  using rule_t = op_args;
  using subs_t = pegtl::empty_list;

  // Does the operator_number rule match from p (a " (") to the end?
  static bool number_at(const char* p, const char* end) {
    p += 2;
    if (p < end && *p >= '0' && *p <= '9') {
      while (p < end && *p >= '0' && *p <= '9') ++p;
    } else if (end - p >= 7 && std::string_view(p, 7) == "unknown") {
      p += 7;
    } else {
      return false;
    }
    if (p == end || *p != ')') return false;
    ++p;
    constexpr std::string_view statistics = ", Statistics(";
    if (static_cast<std::size_t>(end - p) >= statistics.size() && std::string_view(p, statistics.size()) == statistics)
      return true;
    while (p < end && (*p == ' ' || *p == '\t')) ++p;
    return p == end;
  }

  template <typename ParseInput>
  static bool match(ParseInput& in) {
    const char* begin = in.current();
    const char* end = in.end();
    const char* p = begin;
    while (p < end) {
      const void* hit = std::memchr(p, '(', static_cast<std::size_t>(end - p));
      if (hit == nullptr) {
        p = end;
        break;
      }
      const char* open = static_cast<const char*>(hit);
      if (open > begin && open[-1] == ' ' && number_at(open - 1, end)) {
        p = open - 1;
        break;
      }
      p = open + 1;
    }
    in.bump(static_cast<std::size_t>(p - begin));
    return true;
  }
};
struct node_text : pegtl::seq<op_markers, op_name, op_args, pegtl::opt<operator_number>, pegtl::eof> {};

// AQE nests its plans in the tree: "+- == Final Plan ==", "+- == Initial Plan ==", "+- == Current Plan ==".
struct aqe_title : pegtl::plus<pegtl::not_at<pegtl::one<' '>, equals_run>, pegtl::any> {};
struct aqe_header
    : pegtl::seq<equals_run, pegtl::one<' '>, aqe_title, pegtl::one<' '>, equals_run, spaces, pegtl::eof> {};

// A branch commits the line to being a tree node: what follows must be an operator.
struct branch_body : pegtl::sor<aqe_header, node_text> {};
struct tree_line : pegtl::seq<indent, pegtl::if_must<branch, branch_body>> {};
struct root_line : pegtl::seq<spaces, node_text> {};

// Formatted mode: "(12) BroadcastHashJoin [codegen id : 4]" opens a details block; "(unknown) Scan
// parquet t" one of an operator Spark gave no number (a wrapped scan: Comet's CometScan).
struct details_id : pegtl::sor<digits, TAO_PEGTL_STRING("unknown")> {};
struct codegen_id : digits {};
struct codegen_suffix
    : pegtl::seq<spaces, TAO_PEGTL_STRING("[codegen id : "), codegen_id, pegtl::one<']'>, spaces, pegtl::eof> {};
struct details_name : pegtl::plus<pegtl::not_at<codegen_suffix>, pegtl::not_at<spaces, pegtl::eof>, pegtl::any> {};
struct details_header : pegtl::seq<pegtl::one<'('>, details_id, pegtl::one<')'>, pegtl::one<' '>,
                                   pegtl::must<details_name>, pegtl::opt<codegen_suffix>, spaces, pegtl::eof> {};

// "Output [4]: [a#1, ...]", "Condition : (...)", "Left keys [1]: [...]", "Join type: Inner",
// and the golden files' "Location [not included in comparison]/{warehouse_dir}/t]".
struct field_word : pegtl::plus<pegtl::ranges<'a', 'z', 'A', 'Z', '0', '9', '_', '_'>> {};
struct field_key : pegtl::seq<field_word, pegtl::star<pegtl::one<' '>, field_word>> {};
struct field_count : pegtl::seq<pegtl::one<'['>, digits, pegtl::one<']'>> {};
struct field_value : pegtl::star<pegtl::any> {};
struct details_field
    : pegtl::seq<
          field_key,
          pegtl::sor<pegtl::seq<pegtl::opt<pegtl::one<' '>, field_count>, spaces, pegtl::one<':'>, spaces, field_value>,
                     pegtl::seq<pegtl::one<' '>, pegtl::at<pegtl::one<'['>>, field_value>>,
          pegtl::eof> {};

// "Subquery:1 Hosting operator id = 3 Hosting Expression = Subquery scalar-subquery#x, [id=#x]"
struct subquery_number : digits {};
struct hosting_id : digits {};
struct hosting_expression : pegtl::star<pegtl::any> {};
struct subquery_header
    : pegtl::seq<
          TAO_PEGTL_STRING("Subquery:"), subquery_number, spaces, TAO_PEGTL_STRING("Hosting operator id"), spaces,
          pegtl::one<'='>, spaces, pegtl::must<hosting_id>, spaces,
          pegtl::opt<TAO_PEGTL_STRING("Hosting Expression"), spaces, pegtl::one<'='>, spaces, hosting_expression>,
          pegtl::eof> {};

// Error messages for the places where the grammar has committed (must<> / if_must<>).
template <typename Rule>
inline constexpr const char* error_message = nullptr;
template <>
inline constexpr const char* error_message<branch_body> =
    "expected an operator name (or an AQE '== ... Plan ==' header) after the tree branch";
template <>
inline constexpr const char* error_message<details_name> = "expected an operator name after the details number";
template <>
inline constexpr const char* error_message<hosting_id> = "expected the hosting operator's number";

struct error_messages {
  template <typename Rule>
  static constexpr const char* message = error_message<Rule>;
};
template <typename Rule>
using control = pegtl::must_if<error_messages, pegtl::normal, false>::control<Rule>;

}  // namespace planlint::grammar

// For pegtl::analyze (the grammar test): op_args always succeeds and may consume nothing.
template <typename Name>
struct tao::pegtl::analyze_traits<Name, planlint::grammar::op_args> : analyze_opt_traits<> {};
template <typename Name>
struct tao::pegtl::analyze_traits<Name, planlint::grammar::indent> : analyze_opt_traits<> {};
