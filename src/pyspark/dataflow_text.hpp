// What dataflow.cpp and sql_rows.cpp share: reading names, aggregates and SQL text for row facts.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "pyspark/model.hpp"

namespace planlint::pyspark::detail {

constexpr std::int64_t kFewRows = 100000;  // a literal bound at or below this is "few" rows

std::string lower(std::string_view s);
// The leading function name of an expression text: "F.sum(x).alias('s')" -> "sum", "COUNT(*) as n" -> "COUNT".
// With a model, a name imported under another one is read as what it imports (`from
// pyspark.sql.functions import sum as spark_sum`: "spark_sum(x)" -> "sum").
std::string leading_function(std::string_view t, const SourceModel* m = nullptr);
bool is_aggregate_name(std::string_view name);

// The contents of adjacent string literals (`"SELECT a " f"FROM {t} " "LIMIT 1"`): each part's text
// between its quotes, joined; empty if anything else is there.
std::string joined_literals(std::string_view t);
// The text of a string literal, f-strings included (their {placeholders} stay as they are).
std::string string_text(const Expr& e);
// What a query's text shows of its rows (a metadata statement, LIMIT n, a global aggregate...).
RowsFact sql_rows(const std::string& sql);
// The one table or view a query reads (`SELECT ... FROM name [alias] [WHERE ...]`), in lower case;
// empty when it reads a subquery or more than one table.
std::string single_from(const std::string& sql);

}  // namespace planlint::pyspark::detail
