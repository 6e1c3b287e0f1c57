// `SET key=value` statements in SQL text (a %sql cell or a spark.sql string).
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace planlint::pyspark {

struct SqlSet {
  std::string key, value;
  std::size_t begin = 0, end = 0;  // byte range of the statement in the text
  std::size_t value_begin = 0, value_end = 0;
};

std::vector<SqlSet> sql_set_statements(std::string_view sql);

}  // namespace planlint::pyspark
