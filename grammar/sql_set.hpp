// PEGTL grammar for Spark SQL's `SET key=value` statement, as found in %sql cells and spark.sql("...").
#pragma once

#include <tao/pegtl.hpp>

namespace planlint::grammar::sql {

namespace pegtl = tao::pegtl;

struct line_comment : pegtl::seq<pegtl::two<'-'>, pegtl::until<pegtl::eolf>> {};
struct skip : pegtl::star<pegtl::sor<pegtl::plus<pegtl::space>, line_comment>> {};
struct key : pegtl::plus<pegtl::not_one<'=', ' ', '\t', '\r', '\n', ';'>> {};
struct value : pegtl::plus<pegtl::not_one<';', '\r', '\n'>> {};
struct set_keyword : TAO_PEGTL_ISTRING("SET") {};
struct set_statement : pegtl::seq<skip, set_keyword, pegtl::plus<pegtl::blank>, key, pegtl::star<pegtl::blank>,
                                  pegtl::one<'='>, pegtl::star<pegtl::blank>, value> {};

}  // namespace planlint::grammar::sql
