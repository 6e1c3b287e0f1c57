// Typed fields for the operators rules look at, read from simple-mode arguments or formatted details.
#include "plan/operator_fields.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <cstdlib>
#include <set>

#include "plan/diff.hpp"
#include "plan/line_reader.hpp"

namespace planlint::plan {
namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t' || s.front() == '\n')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\n')) s.remove_suffix(1);
  return s;
}

bool starts_with(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }
bool ends_with(std::string_view s, std::string_view p) {
  return s.size() >= p.size() && s.substr(s.size() - p.size()) == p;
}

std::optional<std::int64_t> to_int64(std::string_view s) {
  s = trim(s);
  std::int64_t v = 0;
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc{} || ptr != s.data() + s.size()) return std::nullopt;
  return v;
}

// "name(a, b)" -> "a, b" (closing parenthesis optional: values may be cut).
std::string_view call_args(std::string_view s) {
  auto open = s.find('(');
  if (open == std::string_view::npos) return {};
  s.remove_prefix(open + 1);
  if (!s.empty() && s.back() == ')') s.remove_suffix(1);
  return s;
}

// Formatted details or, failing that, the inline arguments.
std::string_view arguments_of(const PlanNode& n) {
  if (const std::string* a = n.detail("Arguments")) return *a;
  return n.args;
}

std::vector<AttributeRef> refs_of(const std::vector<std::string>& exprs) {
  std::vector<AttributeRef> out;
  for (const auto& e : exprs) {
    auto r = scan_attribute_refs(e);
    out.insert(out.end(), r.begin(), r.end());
  }
  return out;
}

OpKind classify(std::string_view base, std::string_view full) {
  struct Entry {
    std::string_view name;
    OpKind kind;
  };
  static constexpr std::array exact{
      Entry{"Exchange", OpKind::shuffle_exchange},
      Entry{"ShuffleExchange", OpKind::shuffle_exchange},
      Entry{"ShuffleExchangeSink", OpKind::shuffle_exchange},
      Entry{"BroadcastExchange", OpKind::broadcast_exchange},
      Entry{"ReusedExchange", OpKind::reused_exchange},
      Entry{"Filter", OpKind::filter},
      Entry{"Project", OpKind::project},
      Entry{"HashAggregate", OpKind::aggregate},
      Entry{"SortAggregate", OpKind::aggregate},
      Entry{"ObjectHashAggregate", OpKind::aggregate},
      Entry{"Aggregate", OpKind::aggregate},
      Entry{"GroupingAgg", OpKind::aggregate},
      Entry{"Agg", OpKind::aggregate},
      Entry{"HashAggregateExec", OpKind::aggregate},
      Entry{"FileScan", OpKind::file_scan},
      Entry{"Scan", OpKind::file_scan},
      Entry{"BatchScan", OpKind::file_scan},
      Entry{"FileSourceScan", OpKind::file_scan},
      Entry{"NativeScan", OpKind::file_scan},
      Entry{"Relation", OpKind::file_scan},
      Entry{"LocalTableScan", OpKind::local_table_scan},
      Entry{"LocalRelation", OpKind::local_table_scan},
      Entry{"ExternalRDDScan", OpKind::rdd_scan},
      Entry{"RDDScan", OpKind::rdd_scan},
      Entry{"LogicalRDD", OpKind::rdd_scan},
      Entry{"ExternalRDD", OpKind::rdd_scan},
      Entry{"Range", OpKind::range},
      Entry{"BatchEvalPython", OpKind::python_eval},
      Entry{"ArrowEvalPython", OpKind::python_eval},
      Entry{"Window", OpKind::window},
      Entry{"Sort", OpKind::sort},
      Entry{"AdaptiveSparkPlan", OpKind::adaptive_plan},
      Entry{"ShuffleQueryStage", OpKind::query_stage},
      Entry{"BroadcastQueryStage", OpKind::query_stage},
      Entry{"TableCacheQueryStage", OpKind::query_stage},
      Entry{"ResultQueryStage", OpKind::query_stage},
      Entry{"AQEShuffleRead", OpKind::shuffle_read},
      Entry{"CustomShuffleReader", OpKind::shuffle_read},
      Entry{"ShuffleExchangeSource", OpKind::shuffle_read},
      Entry{"Subquery", OpKind::subquery},
      Entry{"SubqueryBroadcast", OpKind::subquery},
      Entry{"ReusedSubquery", OpKind::subquery},
  };
  for (const auto& e : exact)
    if (e.name == base) return e.kind;
  if (full.find("Join") != std::string_view::npos || full.find("CartesianProduct") != std::string_view::npos)
    return OpKind::join;
  return OpKind::other;
}

void parse_exchange(PlanNode& n) {
  ExchangeInfo x;
  auto items = split_top_level(arguments_of(n));
  for (std::size_t i = 0; i < items.size(); ++i) {
    std::string_view it = items[i];
    if (i == 0) {
      std::string lower(it.substr(0, it.find('(')));
      for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      if (lower.find("hashpartitioning") != std::string::npos) {
        x.partitioning = Partitioning::hash;
      } else if (lower.find("rangepartitioning") != std::string::npos) {
        x.partitioning = Partitioning::range;
      } else if (lower.find("roundrobinpartitioning") != std::string::npos) {
        x.partitioning = Partitioning::round_robin;
      } else if (lower.find("singlepartition") != std::string::npos) {
        x.partitioning = Partitioning::single;
        x.num_partitions = 1;
      }
      if (x.partitioning == Partitioning::hash || x.partitioning == Partitioning::range ||
          x.partitioning == Partitioning::round_robin) {
        auto inner = split_top_level(call_args(it));
        if (!inner.empty()) {
          x.num_partitions = to_int64(inner.back());
          if (x.num_partitions) inner.pop_back();
        }
        if (x.partitioning != Partitioning::round_robin) x.keys = std::move(inner);
        x.key_refs = refs_of(x.keys);
      }
      continue;
    }
    if (starts_with(it, "ENSURE_REQUIREMENTS") || starts_with(it, "REPARTITION") || starts_with(it, "REBALANCE") ||
        it == "true" || it == "false")
      x.origin = std::string(it);
  }
  n.fields = std::move(x);
}

bool is_join_type(std::string_view w) {
  static constexpr std::array types{"Inner",    "LeftOuter", "RightOuter", "FullOuter", "LeftSemi",
                                    "LeftAnti", "Cross",     "LeftSingle", "UsingJoin", "NaturalJoin"};
  for (std::string_view t : types)
    if (w == t) return true;
  return starts_with(w, "ExistenceJoin");
}

void parse_join(PlanNode& n) {
  JoinInfo j;
  static constexpr std::array strategies{"SortMergeJoin",           "ShuffledHashJoin", "BroadcastHashJoin",
                                         "BroadcastNestedLoopJoin", "CartesianProduct", "ShuffledNestedLoopJoin",
                                         "NestedLoopJoin",          "HashJoin",         "Join"};
  for (std::string_view s : strategies)
    if (n.name.find(s) != std::string::npos) {
      j.strategy = std::string(s);
      break;
    }
  auto take_word = [&](std::string_view w) {
    if (is_join_type(w) && j.join_type.empty()) {
      j.join_type = std::string(w);
    } else if (w == "BuildLeft" || w == "BuildRight") {
      j.build_side = std::string(w);
    } else {
      return false;
    }
    return true;
  };
  if (n.detail("Left keys") != nullptr || n.detail("Join type") != nullptr || n.detail("Join condition") != nullptr) {
    // Formatted mode: "BroadcastHashJoin Inner BuildRight (24)" plus details.
    std::string_view a = n.args;
    while (!a.empty()) {
      auto sp = a.find(' ');
      take_word(a.substr(0, sp));
      if (sp == std::string_view::npos) break;
      a.remove_prefix(sp + 1);
    }
    if (const auto* k = n.detail("Left keys")) j.left_keys = split_list(*k);
    if (const auto* k = n.detail("Right keys")) j.right_keys = split_list(*k);
    if (const auto* t = n.detail("Join type")) j.join_type = std::string(trim(*t));
    if (const auto* c = n.detail("Join condition"); c != nullptr && trim(*c) != "None")
      j.condition = std::string(trim(*c));
  } else {
    auto items = split_top_level(n.args);
    std::size_t i = 0;
    if (items.size() >= 2 && starts_with(items[0], "[") && starts_with(items[1], "[")) {
      j.left_keys = split_list(items[0]);
      j.right_keys = split_list(items[1]);
      i = 2;
    }
    for (; i < items.size(); ++i) {
      std::string_view it = items[i];
      if (take_word(it) || it == "true" || it == "false") continue;
      // "BuildRight, Inner" may also arrive space-separated in older Spark.
      if (it.find(' ') != std::string_view::npos && take_word(it.substr(0, it.find(' '))) &&
          take_word(it.substr(it.find(' ') + 1)))
        continue;
      if (j.condition.empty()) j.condition = std::string(it);
    }
  }
  j.left_refs = refs_of(j.left_keys);
  j.right_refs = refs_of(j.right_keys);
  n.fields = std::move(j);
}

// The metadata fields Spark's scans print (FileSourceScanExec, BatchScanExec, and what Databricks and
// the accelerators add), which start an item even inside a bracket a truncation left open.
bool is_scan_field(std::string_view key) {
  static constexpr std::array<std::string_view, 24> kFields{"Batched",
                                                            "DataFilters",
                                                            "Format",
                                                            "Location",
                                                            "PartitionFilters",
                                                            "PushedFilters",
                                                            "ReadSchema",
                                                            "PartitionCount",
                                                            "SelectedBucketsCount",
                                                            "DisabledBucket",
                                                            "PushedAggregation",
                                                            "PushedGroupBy",
                                                            "PushedAggregates",
                                                            "PushedGroupByExpressions",
                                                            "PushedLimit",
                                                            "PushedOffset",
                                                            "PushedTopN",
                                                            "RuntimeFilters",
                                                            "DictionaryFilters",
                                                            "RequiredDataFilters",
                                                            "OptionalDataFilters",
                                                            "PushedJoins",
                                                            "Output",
                                                            "BucketedScan"};
  return std::find(kFields.begin(), kFields.end(), key) != kFields.end();
}

// Scan arguments "parquet db.t[a#1,b#2] Batched: true, DataFilters: [...], Format: Parquet, ..." or details.
void parse_scan(PlanNode& n) {
  ScanInfo s;
  std::string_view a = n.args;
  std::string_view head = a;
  auto kv_start = std::string_view::npos;
  // The key-value part begins at the first "Word: " after the head.
  for (std::size_t i = 0; i + 2 < a.size(); ++i) {
    if (a[i] == ':' && a[i + 1] == ' ' && i > 0) {
      std::size_t w = i;
      while (w > 0 && std::isalpha(static_cast<unsigned char>(a[w - 1]))) --w;
      if (w < i && (w == 0 || a[w - 1] == ' ')) {
        kv_start = w;
        break;
      }
    }
  }
  if (kv_start != std::string_view::npos) head = trim(a.substr(0, kv_start));
  // "Key: value" items. Spark cuts a long value with "..." and never closes its bracket
  // (`DataFilters: [isnotnull(d_date#1), ...`): inside an open bracket, a scan field's name after
  // ", " still starts the next item, so every field survives the truncation of any other.
  std::vector<std::pair<std::string, std::string>> kv;
  if (kv_start != std::string_view::npos) {
    const std::string_view rest = a.substr(kv_start);
    auto key_at = [&](std::size_t i, bool known_only) -> std::size_t {  // length of "Key" at i, or 0
      std::size_t w = i;
      while (w < rest.size() && std::isalpha(static_cast<unsigned char>(rest[w]))) ++w;
      if (w == i || w + 1 >= rest.size() || rest[w] != ':' || rest[w + 1] != ' ') return 0;
      if (known_only && !is_scan_field(rest.substr(i, w - i))) return 0;
      return w - i;
    };
    int depth = 0;
    std::size_t item = 0;
    auto flush = [&](std::size_t end) {
      const std::string_view text = trim(rest.substr(item, end - item));
      const std::size_t colon = text.find(": ");
      bool is_key = colon != std::string_view::npos && colon > 0;
      for (std::size_t c = 0; is_key && c < colon; ++c)
        if (!std::isalpha(static_cast<unsigned char>(text[c]))) is_key = false;
      if (is_key)
        kv.emplace_back(text.substr(0, colon), text.substr(colon + 2));
      else if (!kv.empty() && !text.empty())
        kv.back().second += "," + std::string(text);
    };
    for (std::size_t i = 0; i < rest.size(); ++i) {
      const char c = rest[i];
      if (c == '(' || c == '[' || c == '{') ++depth;
      if ((c == ')' || c == ']' || c == '}') && depth > 0) --depth;
      if (c != ',' || i + 1 >= rest.size() || rest[i + 1] != ' ') continue;
      if (depth == 0 ? key_at(i + 2, false) == 0 : key_at(i + 2, true) == 0) continue;
      flush(i);
      item = i + 2;
      depth = 0;
    }
    flush(rest.size());
  }
  auto field = [&](std::string_view key) -> const std::string* {
    if (const std::string* d = n.detail(key)) return d;
    for (const auto& [k, v] : kv)
      if (k == key) return &v;
    return nullptr;
  };
  if (base_operator_name(n.name) == "Relation") {
    // Logical "Relation db.t[a#1,b#2] parquet"
    auto sp = head.rfind(' ');
    if (sp != std::string_view::npos) s.format = std::string(head.substr(sp + 1));
    head = head.substr(0, sp);
  } else {
    // Comet names its scan implementation first: "CometScan [native_iceberg_compat] parquet db.t".
    if (head.size() > 2 && head.front() == '[')
      if (auto close = head.find("] "); close != std::string_view::npos && head.find(' ') > close)
        head = trim(head.substr(close + 2));
    auto sp = head.find(' ');
    s.format = std::string(head.substr(0, sp));
    head = sp == std::string_view::npos ? std::string_view{} : trim(head.substr(sp + 1));
  }
  auto bracket = head.find('[');
  s.table = std::string(trim(head.substr(0, bracket)));
  if (bracket != std::string_view::npos) s.output = scan_attribute_refs(head.substr(bracket));
  if (const auto* o = n.detail("Output")) s.output = scan_attribute_refs(*o);
  if (const auto* v = field("PushedFilters")) {
    s.pushed_filters = split_list(*v, &s.pushed_cut);
    s.prints_pushed_filters = true;
  }
  if (const auto* v = field("PartitionFilters")) s.partition_filters = split_list(*v, &s.partition_cut);
  if (const auto* v = field("DataFilters")) s.data_filters = split_list(*v, &s.data_cut);
  if (const auto* v = field("ReadSchema")) s.read_schema = *v;
  if (const auto* v = field("Location")) s.location = *v;
  n.fields = std::move(s);
}

void parse_python_eval(PlanNode& n) {
  PythonEvalInfo p;
  auto items = split_top_level(arguments_of(n));
  if (!items.empty()) {
    p.udf_calls = split_list(items[0]);
    for (const auto& c : p.udf_calls) p.udf_names.push_back(c.substr(0, c.find('(')));
  }
  if (items.size() > 1) p.outputs = scan_attribute_refs(items[1]);
  n.fields = std::move(p);
}

// "Window [exprs], [partition], [order]": Spark omits an empty list, so an order spec is told apart
// from a partition spec by its sort directions.
void parse_window(PlanNode& n) {
  WindowInfo w;
  auto items = split_top_level(arguments_of(n));
  if (!items.empty()) w.expressions = split_list(items[0]);
  for (std::size_t i = 1; i < items.size() && i < 3; ++i) {
    auto list = split_list(items[i]);
    bool ordered = !list.empty() &&
                   (list.front().find(" ASC") != std::string::npos || list.front().find(" DESC") != std::string::npos);
    (ordered ? w.order_spec : w.partition_spec) = std::move(list);
  }
  n.fields = std::move(w);
}

void parse_aggregate(PlanNode& n) {
  AggregateInfo a;
  const std::string* photon_args = base_operator_name(n.name) == "GroupingAgg" || base_operator_name(n.name) == "Agg"
                                       ? n.detail("Arguments")
                                       : nullptr;
  if (const auto* k = n.detail("Keys")) {
    a.keys = split_list(*k);
    if (const auto* f = n.detail("Functions")) a.functions = split_list(*f);
  } else if (photon_args != nullptr) {
    // Photon's formatted details: "Arguments: [keys], [functions], [aggregate attributes], [results], flag".
    auto items = split_top_level(*photon_args);
    if (!items.empty()) a.keys = split_list(items[0]);
    if (items.size() > 1) a.functions = split_list(items[1]);
  } else if (starts_with(n.args, "(")) {
    for (const auto& item : split_top_level(call_args(n.args))) {
      if (starts_with(item, "keys=")) a.keys = split_list(std::string_view(item).substr(5));
      if (starts_with(item, "functions=")) a.functions = split_list(std::string_view(item).substr(10));
    }
  } else {
    auto items = split_top_level(n.args);                       // logical "Aggregate [k#1], [k#1, sum(v#2) AS s#3L]"
    if (items.size() == 1) a.functions = split_list(items[0]);  // global aggregate: no grouping list
    if (items.size() > 1) {
      a.keys = split_list(items[0]);
      a.functions = split_list(items[1]);
    }
  }
  a.key_refs = refs_of(a.keys);
  std::string_view base = base_operator_name(n.name);
  if (base == "Agg") {
    a.grouped = false;  // Photon's global aggregate; grouped ones are PhotonGroupingAgg
  } else if (base != "GroupingAgg") {
    a.grouped = !a.keys.empty() || (n.detail("Keys") == nullptr && n.args.empty());
  }
  n.fields = std::move(a);
}

void parse_statistics(PlanNode& n) {
  // Cost mode appends ", Statistics(sizeInBytes=10.1 KiB, rowCount=3)" to the arguments.
  auto pos = n.args.rfind("Statistics(");
  if (pos == std::string::npos) return;
  std::string_view st = std::string_view(n.args).substr(pos);
  for (const auto& item : split_top_level(call_args(st))) {
    if (starts_with(item, "sizeInBytes=")) n.stats.size_in_bytes = parse_byte_size(std::string_view(item).substr(12));
    if (starts_with(item, "rowCount=")) {
      // Large counts print in scientific notation: "rowCount=1.00E+5".
      std::string v = item.substr(9);
      char* end = nullptr;
      double d = std::strtod(v.c_str(), &end);
      if (end != v.c_str() && d >= 0 && d < 9.2e18) n.stats.row_count = static_cast<std::int64_t>(d);
    }
  }
  std::string_view before = trim(std::string_view(n.args).substr(0, pos));
  if (!before.empty() && before.back() == ',') before.remove_suffix(1);
  n.args = std::string(trim(before));
}

}  // namespace

std::string_view base_operator_name(std::string_view name) {
  // Most names have neither a vendor prefix (P, G, C, V) nor an Exec / Transformer suffix.
  if (name.empty() || (std::string_view("PGCV").find(name.front()) == std::string_view::npos && name.back() != 'c' &&
                       name.back() != 'r'))
    return name;
  // GpuColumnarExchange -> ColumnarExchange -> Exchange: vendor prefixes can stack.
  for (int round = 0; round < 2; ++round) {
    bool stripped = false;
    static constexpr std::array<std::string_view, 5> kPrefixes{"Photon", "Gpu", "Comet", "Columnar", "Velox"};
    for (std::string_view p : kPrefixes) {
      if (p.front() != name.front()) continue;
      if (starts_with(name, p) && name.size() > p.size() && std::isupper(static_cast<unsigned char>(name[p.size()])) &&
          name != "ColumnarToRow") {
        name.remove_prefix(p.size());
        stripped = true;
        break;
      }
    }
    if (!stripped) break;
  }
  static constexpr std::array<std::string_view, 3> kSuffixes{"ExecTransformer", "Transformer", "Exec"};
  for (std::string_view s : kSuffixes) {
    if (s.back() != name.back()) continue;
    if (ends_with(name, s) && name.size() > s.size()) {
      name.remove_suffix(s.size());
      break;
    }
  }
  return name;
}

std::vector<std::string> split_top_level(std::string_view text) {
  std::vector<std::string> out;
  int depth = 0;
  std::size_t start = 0;
  for (std::size_t i = 0; i <= text.size(); ++i) {
    char c = i < text.size() ? text[i] : ',';
    if (c == '(' || c == '[' || c == '{') {
      ++depth;
    } else if ((c == ')' || c == ']' || c == '}') && depth > 0) {
      --depth;
    } else if (c == ',' && (depth == 0 || i == text.size())) {
      auto item = trim(text.substr(start, i - start));
      if (!item.empty()) out.emplace_back(item);
      start = i + 1;
    }
  }
  return out;
}

std::vector<std::string> split_list(std::string_view text, bool* cut) {
  text = trim(text);
  bool open = false;
  if (!text.empty() && text.front() == '[') {
    text.remove_prefix(1);
    if (!text.empty() && text.back() == ']')
      text.remove_suffix(1);
    else
      open = true;  // never closed: Spark cut the value
  }
  auto items = split_top_level(text);
  // `[a, b, ...`: what Spark printed before the cut; the last item may be cut mid-way too.
  bool truncated = open || ends_with(text, "...");
  if (truncated && !items.empty() && ends_with(items.back(), "...")) {
    std::string& last = items.back();
    last.resize(last.size() - 3);
    while (!last.empty() && (last.back() == ' ' || last.back() == ',')) last.pop_back();
    if (last.empty() || open) items.pop_back();  // an item cut mid-way is not a filter
  }
  if (cut != nullptr) *cut = truncated;
  return items;
}

std::optional<double> parse_byte_size(std::string_view text) {
  text = trim(text);
  auto sp = text.find(' ');
  std::string number(text.substr(0, sp));
  char* end = nullptr;
  double v = std::strtod(number.c_str(), &end);
  if (end == number.c_str()) return std::nullopt;
  std::string_view unit = sp == std::string_view::npos ? "B" : trim(text.substr(sp + 1));
  static constexpr std::array units{"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  static constexpr std::array old_units{"B", "KB", "MB", "GB", "TB", "PB", "EB"};
  double scale = 1;
  for (std::size_t i = 0; i < units.size(); ++i, scale *= 1024) {
    if (unit == units[i] || unit == old_units[i]) return v * scale;
  }
  return std::nullopt;
}

std::vector<std::string> ProjectInfo::list() const { return split_list(text); }

void analyze_operator(PlanNode& n) {
  parse_statistics(n);
  std::string_view base = base_operator_name(n.name);
  n.kind = classify(base, n.name);
  switch (n.kind) {
    case OpKind::shuffle_exchange:
      return parse_exchange(n);
    case OpKind::join:
      return parse_join(n);
    case OpKind::filter: {
      FilterInfo f;
      // Spark's formatted details say "Condition"; Gluten's FilterExecTransformer says "Arguments".
      const std::string* c = n.detail("Condition");
      if (c == nullptr) c = n.detail("Arguments");
      f.condition = c != nullptr ? std::string(trim(*c)) : n.args;
      f.refs = scan_attribute_refs(f.condition);
      n.fields = std::move(f);
      return;
    }
    case OpKind::project: {
      ProjectInfo p;
      // Spark's formatted details list the projection as Output; Photon's as Arguments.
      const std::string* o = n.detail("Output");
      if (o == nullptr) o = n.detail("Arguments");
      p.text = o != nullptr ? *o : n.args;
      n.fields = std::move(p);
      return;
    }
    case OpKind::aggregate:
      return parse_aggregate(n);
    case OpKind::file_scan:
      // `Scan ExistingRDD[a#1]` (an RDD's rows, also formatted "Scan ExistingRDD (1)") and `Scan[obj#12]`
      // (objects a Dataset was made of): no files, no table, nothing pushed.
      if (starts_with(n.args, "ExistingRDD") || starts_with(n.args, "[obj#") || starts_with(n.args, "RDD")) {
        n.kind = OpKind::rdd_scan;
        return;
      }
      return parse_scan(n);
    case OpKind::python_eval:
      return parse_python_eval(n);
    case OpKind::window:
      return parse_window(n);
    case OpKind::range: {
      // "Range (0, 10, step=1, splits=2)": the row count rules need is (end - start) / step.
      auto items = split_top_level(call_args(arguments_of(n)));
      if (items.size() >= 2) {
        auto lo = to_int64(items[0]);
        auto hi = to_int64(items[1]);
        std::int64_t step = 1;
        if (items.size() >= 3 && starts_with(items[2], "step=")) step = to_int64(items[2].substr(5)).value_or(1);
        std::int64_t span = 0;
        if (lo && hi && step > 0 && !n.stats.row_count && !__builtin_sub_overflow(*hi, *lo, &span))
          n.stats.row_count = std::max<std::int64_t>(0, span / step);
      }
      return;
    }
    default:
      return;
  }
}

std::vector<const PlanNode*> executed_operators(const Plan& plan) {
  std::vector<const PlanNode*> out;
  std::vector<const PlanNode*> stack;
  for (const auto& s : plan.sections)
    if (s.section == Section::physical)
      for (auto it = s.roots.rbegin(); it != s.roots.rend(); ++it) stack.push_back(*it);
  for (const auto& [number, root] : plan.subqueries)
    if (root->parent == nullptr) stack.push_back(root);
  // A cached plan is printed under every scan of the cache (InMemoryTableScan, then InMemoryRelation
  // and the plan that fills it), but runs once: its operators are the first print's.
  std::set<std::string> cached_plans;
  while (!stack.empty()) {
    const PlanNode* n = stack.back();
    stack.pop_back();
    out.push_back(n);
    if (base_operator_name(n->name) == "InMemoryRelation" && !n->children.empty()) {
      const PlanNode* top = n->children.front();
      if (!cached_plans.insert(without_run_ids(n->args) + "|" + without_run_ids(top->name + " " + top->args)).second)
        continue;
    }
    bool has_later_plan = false;
    for (const PlanNode* c : n->children)
      has_later_plan = has_later_plan || c->aqe_role == AqeRole::final_plan || c->aqe_role == AqeRole::current_plan;
    for (auto it = n->subqueries.rbegin(); it != n->subqueries.rend(); ++it) stack.push_back(*it);
    for (auto it = n->children.rbegin(); it != n->children.rend(); ++it) {
      if (has_later_plan && (*it)->aqe_role == AqeRole::initial_plan) continue;
      stack.push_back(*it);
    }
  }
  return out;
}

}  // namespace planlint::plan
