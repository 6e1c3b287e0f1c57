// PEGTL grammar for the pieces of operator argument text that rules compare: attribute references
// `name#id` (ids are numbers, or `x` in Spark's normalised golden files; `L` marks a LongType).
#pragma once

#include <tao/pegtl.hpp>

namespace planlint::grammar::args {

namespace pegtl = tao::pegtl;

struct name_char : pegtl::ranges<'a', 'z', 'A', 'Z', '0', '9', '_', '_', '$', '$', '.', '.'> {};
struct attr_name : pegtl::seq<pegtl::ranges<'a', 'z', 'A', 'Z', '_'>, pegtl::star<name_char>> {};
struct attr_id : pegtl::sor<pegtl::plus<pegtl::digit>, pegtl::one<'x'>> {};
struct long_suffix : pegtl::one<'L'> {};
struct attr_ref : pegtl::seq<attr_name, pegtl::one<'#'>, attr_id, pegtl::opt<long_suffix>, pegtl::not_at<name_char>> {};

// Scan a whole argument string: attribute references anywhere, everything else skipped a word at a time.
struct attr_scan : pegtl::seq<pegtl::star<pegtl::sor<attr_ref, pegtl::plus<name_char>, pegtl::any>>, pegtl::eof> {};

}  // namespace planlint::grammar::args
