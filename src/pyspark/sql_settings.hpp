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

namespace planlint::pyspark {

// `spark.conf.set("k", v)`, `sqlContext.setConf("k", v)` and `spark.sql("SET k=v")` in Scala code (a
// Databricks %scala cell). Only literal keys; `literal` says whether the value is a literal too.
struct CodeSetting {
  std::string key, value;
  bool literal = false;
  std::size_t begin = 0, end = 0;  // the call (or the SET statement inside the string)
  std::size_t value_begin = 0, value_end = 0;
  std::string via;  // "conf.set", "setConf", "SQL SET"
};

std::vector<CodeSetting> scala_settings(std::string_view code);

}  // namespace planlint::pyspark
